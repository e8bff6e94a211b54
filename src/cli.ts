import { serveCommand, migrateCommand } from './cli/server.command.ts';
import {
  usersCreateCommand, usersDeleteCommand, usersDisableCommand, usersEnableCommand, usersListCommand, usersResetPasswordCommand,
} from './cli/users.command.ts';
import { tokensIssueCommand } from './cli/tokens.command.ts';
import { apiTokensCreateCommand } from './cli/api-tokens.command.ts';
import { importCommand } from './cli/import.command.ts';
import { clientsCreateCommand } from './cli/clients.command.ts';
import { exportCommand } from './cli/export.command.ts';
import { queriesImportCommand } from './cli/queries.command.ts';
import { type Command, helpText, isUserError, parse } from './cli/command.ts';
import { UserInputError } from './modules/users/users.service.ts';
import { describeError } from './cli/startup-errors.ts';

/** Every command of `scent`, in one list. */
const COMMANDS: Command[] = [
  serveCommand,
  migrateCommand,
  usersCreateCommand,
  usersDisableCommand,
  usersEnableCommand,
  usersDeleteCommand,
  usersResetPasswordCommand,
  usersListCommand,
  tokensIssueCommand,
  apiTokensCreateCommand,
  importCommand,
  clientsCreateCommand,
  exportCommand,
  queriesImportCommand,
];

function overview(): string {
  const lines = ['Usage: scent <command> [options]', '', 'Commands:'];
  for (const c of COMMANDS) lines.push(`  ${c.path.join(' ').padEnd(18)} ${c.summary}`);
  lines.push('', 'Run `scent <command> --help` for the options of a command; `scent --version` for the version.');
  return lines.join('\n');
}

/** `scent users --help`: the commands of one group. */
function groupHelp(group: string, commands: Command[]): string {
  const lines = [`Usage: scent ${group} <command> [options]`, '', 'Commands:'];
  for (const c of commands) lines.push(`  ${c.path.join(' ').padEnd(18)} ${c.summary}`);
  lines.push('', `Run \`scent ${group} <command> --help\` for the options of a command.`);
  return lines.join('\n');
}

const isHelp = (word: string | undefined) => word === '--help' || word === '-h' || word === 'help';

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version') {
    process.stdout.write(`scent ${await version()}\n`);
    return 0;
  }
  const command = COMMANDS
    .filter((c) => c.path.every((word, i) => argv[i] === word))
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (!command) {
    const group = COMMANDS.filter((c) => c.path.length > 1 && c.path[0] === argv[0]);
    if (group.length) {
      const asked = argv.length === 1 || isHelp(argv[1]);
      (asked && argv.length > 1 ? process.stdout : process.stderr).write(`${groupHelp(argv[0], group)}\n`);
      if (argv.length > 1 && !asked) process.stderr.write(`\nunknown command: scent ${argv.join(' ')}\n`);
      return asked && argv.length > 1 ? 0 : 2;
    }
    const asked = argv[0] === undefined || isHelp(argv[0]);
    (asked ? process.stdout : process.stderr).write(`${overview()}\n`);
    if (!asked) process.stderr.write(`\nunknown command: ${argv.join(' ')}\n`);
    return asked ? 0 : 2;
  }
  try {
    const args = parse(command, argv.slice(command.path.length));
    if (args.values.help) {
      process.stdout.write(`${helpText(command)}\n`);
      return 0;
    }
    return await command.run(args);
  } catch (err) {
    if (isUserError(err) || err instanceof UserInputError) {
      process.stderr.write(`scent ${command.path.join(' ')}: ${(err as Error).message}\n`);
      return 2;
    }
    process.stderr.write(`scent ${command.path.join(' ')}: ${describeError(err)}\n`);
    if (process.env.SCENT_DEBUG) process.stderr.write(`${(err as Error).stack ?? err}\n`);
    return 1;
  }
}

async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
