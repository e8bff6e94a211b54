import { createUser, deleteUserByName, disableUser, enableUser, resetPassword } from '../modules/users/users.service.ts';
import { confirm } from './confirm.ts';
import { ROLE_NAMES } from '../auth/permissions.ts';
import { toRfc3339 } from '../db/time.ts';
import { UsageError, type Command } from './command.ts';
import { databaseOption, withDatabase } from './database.ts';

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || !v) throw new UsageError(`--${name} is required`);
  return v;
}

export const usersCreateCommand: Command = {
  path: ['users', 'create'],
  summary: 'create a user; prints its id',
  usage: '--name NAME --email EMAIL --role ROLE [--password PW] [--sso-provider PROVIDER_NAME]',
  options: {
    name: { type: 'string', description: 'login name (principal name)' },
    email: { type: 'string', description: 'e-mail address' },
    role: { type: 'string', description: ROLE_NAMES.join(' | ') },
    password: { type: 'string', description: 'password for POST /api/v2/login (optional)' },
    'sso-provider': { type: 'string', description: 'link to an existing SSO provider by name' },
    ...databaseOption,
  },
  async run({ values }) {
    const input = {
      principalName: required(values, 'name'),
      email: required(values, 'email'),
      roleName: required(values, 'role'),
      password: values.password as string | undefined,
      ssoProviderName: values['sso-provider'] as string | undefined,
    };
    return withDatabase(values, async ({ db }) => {
      const user = await createUser(db, input);
      process.stdout.write(`${user.id}\n`);
      return 0;
    }, { create: true });
  },
};

export const usersDisableCommand: Command = {
  path: ['users', 'disable'],
  summary: 'disable a user and end its sessions',
  usage: 'NAME [--database URL]',
  options: { ...databaseOption },
  async run({ values, positionals }) {
    if (positionals.length !== 1) throw new UsageError('expected exactly one user NAME');
    return withDatabase(values, async ({ db }) => {
      await disableUser(db, positionals[0]);
      process.stdout.write(`disabled ${positionals[0]}\n`);
      return 0;
    });
  },
};

export const usersListCommand: Command = {
  path: ['users', 'list'],
  summary: 'list users (tab-separated: id, name, email, roles, disabled, last login)',
  usage: '[--database URL]',
  options: { ...databaseOption },
  async run({ values }) {
    return withDatabase(values, async ({ db }) => {
      const rows = await db.kysely
        .selectFrom('users')
        .leftJoin('users_roles', 'users_roles.user_id', 'users.id')
        .leftJoin('roles', 'roles.id', 'users_roles.role_id')
        .select(['users.id', 'users.principal_name', 'users.email_address', 'users.is_disabled', 'users.last_login', 'roles.name as role'])
        .orderBy('users.principal_name')
        .execute();
      process.stdout.write('id\tname\temail\troles\tdisabled\tlast_login\n');
      for (const r of rows) {
        const last = r.last_login ? toRfc3339(r.last_login) : '-';
        process.stdout.write(`${r.id}\t${r.principal_name}\t${r.email_address ?? ''}\t${r.role ?? ''}\t${r.is_disabled ? 'yes' : 'no'}\t${last}\n`);
      }
      return 0;
    });
  },
};

function oneName(positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError('expected exactly one user NAME');
  return positionals[0];
}

export const usersEnableCommand: Command = {
  path: ['users', 'enable'],
  summary: 'enable a disabled user',
  usage: 'NAME [--database URL]',
  options: { ...databaseOption },
  async run({ values, positionals }) {
    const name = oneName(positionals);
    return withDatabase(values, async ({ db }) => {
      await enableUser(db, name);
      process.stdout.write(`enabled ${name}\n`);
      return 0;
    });
  },
};

export const usersDeleteCommand: Command = {
  path: ['users', 'delete'],
  summary: 'delete a user with their sessions, password, API tokens and saved queries (asks first)',
  usage: 'NAME [--yes] [--database URL]',
  options: { ...databaseOption, yes: { type: 'boolean', description: 'do not ask (for scripts)' } },
  async run({ values, positionals }) {
    const name = oneName(positionals);
    if (!values.yes && !(await confirm(`Delete the user "${name}" with their API tokens and saved queries? Type "yes" to go on: `))) {
      process.stderr.write('scent users delete: nothing deleted (answer "yes", or pass --yes in scripts)\n');
      return 1;
    }
    return withDatabase(values, async ({ db }) => {
      await deleteUserByName(db, name);
      process.stdout.write(`deleted ${name}\n`);
      return 0;
    });
  },
};

export const usersResetPasswordCommand: Command = {
  path: ['users', 'reset-password'],
  summary: 'give a user a new one-time password (printed once; its login may only set a new one) and end their sessions',
  usage: 'NAME [--database URL]',
  options: { ...databaseOption },
  async run({ values, positionals }) {
    const name = oneName(positionals);
    return withDatabase(values, async ({ db }) => {
      const password = await resetPassword(db, name);
      process.stdout.write(`${password}\n`);
      process.stderr.write(`one-time password for ${name}: its first login must set a new one (PUT /api/v2/bloodhound-users/{id}/secret)\n`);
      return 0;
    });
  },
};
