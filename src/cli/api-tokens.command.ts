import { issueToken } from '../modules/tokens/tokens.service.ts';
import { findUserByName } from '../modules/users/users.repository.ts';
import { UsageError, type Command } from './command.ts';
import { databaseOption, openDatabase } from './database.ts';

export const apiTokensCreateCommand: Command = {
  path: ['api-tokens', 'create'],
  summary: 'create an API token for signed requests; prints {"id", "key"} as JSON',
  usage: '--user NAME --name TOKEN_NAME [--database URL]',
  options: {
    user: { type: 'string', description: 'principal name of the owner' },
    name: { type: 'string', description: 'a name to recognise the token by' },
    ...databaseOption,
  },
  async run({ values }) {
    if (typeof values.user !== 'string' || !values.user) throw new UsageError('--user is required');
    if (typeof values.name !== 'string' || !values.name.trim()) throw new UsageError('--name is required');
    const { config, db } = await openDatabase(values);
    try {
      const user = await findUserByName(db.kysely, values.user);
      if (!user || user.deleted_at !== null) throw new UsageError(`no user named "${values.user}"`);
      const token = await issueToken(db, config, user.id, values.name.trim());
      process.stdout.write(`${JSON.stringify({ id: token.id, key: token.key })}\n`);
      return 0;
    } finally {
      await db.close();
    }
  },
};
