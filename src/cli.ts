import { serveCommand, migrateCommand } from './cli/server.command.ts';
import { usersCreateCommand, usersDisableCommand, usersListCommand } from './cli/users.command.ts';
import { tokensIssueCommand } from './cli/tokens.command.ts';
import { apiTokensCreateCommand } from './cli/api-tokens.command.ts';
import { importCommand } from './cli/import.command.ts';
import { clientsCreateCommand } from './cli/clients.command.ts';
import { type Command, helpText, isUserError, parse } from './cli/command.ts';
import { UserInputError } from './modules/users/users.service.ts';

/** Every command of `scent`, in one list. */
const COMMANDS: Command[] = [
  serveCommand,
  migrateCommand,
  usersCreateCommand,
  usersDisableCommand,
  usersListCommand,
  tokensIssueCommand,
  apiTokensCreateCommand,
  importCommand,
  clientsCreateCommand,
];

function overview(): string {
  const lines = ['Usage: scent <command> [options]', '', 'Commands:'];
  for (const c of COMMANDS) lines.push(`  ${c.path.join(' ').padEnd(18)} ${c.summary}`);
  lines.push('', 'Run `scent <command> --help` for the options of a command.');
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const command = COMMANDS
    .filter((c) => c.path.every((word, i) => argv[i] === word))
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (!command) {
    const asked = argv[0] === undefined || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help';
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
    process.stderr.write(`scent ${command.path.join(' ')}: ${(err as Error).stack ?? err}\n`);
    return 1;
  }
}
