import { parseDuration } from '../config.ts';
import { issueSession } from '../auth/sessions.ts';
import { findUserByName } from '../modules/users/users.repository.ts';
import { findClient } from '../modules/clients/clients.repository.ts';
import { UsageError, type Command } from './command.ts';
import { databaseOption, withDatabase } from './database.ts';

export const tokensIssueCommand: Command = {
  path: ['tokens', 'issue'],
  summary: 'start a new session for a user or a collection client; prints only the bearer JWT',
  usage: '(--user NAME | --client ID) [--ttl 8h] [--database URL]',
  options: {
    user: { type: 'string', description: 'principal name of the user' },
    client: { type: 'string', description: 'id of a collection client (enterprise; default ttl 365d)' },
    ttl: { type: 'string', description: 'lifetime: 45s, 30m, 8h, 7d (default 8h for users, 365d for clients)' },
    ...databaseOption,
  },
  async run({ values }) {
    const isClient = typeof values.client === 'string';
    const ttl = parseDuration(String(values.ttl ?? (isClient ? '365d' : '8h')));
    if (!ttl) throw new UsageError('--ttl must be a duration like 30m, 8h or 7d');
    if (isClient && values.user !== undefined) throw new UsageError('give either --user or --client, not both');
    if (!isClient && typeof values.user !== 'string') throw new UsageError('--user or --client is required');
    return withDatabase(values, async ({ config, db }) => {
      if (isClient) {
        const clientId = String(values.client).toLowerCase();
        if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(clientId) || !(await findClient(db.kysely, clientId))) {
          throw new UsageError(`no client with id "${values.client}"`);
        }
        const { token } = await issueSession(db, config, { clientId }, ttl, 'cli');
        process.stdout.write(`${token}\n`);
        return 0;
      }
      if (typeof values.user !== 'string') throw new UsageError('--user is required');
      const user = await findUserByName(db.kysely, values.user);
      if (!user) throw new UsageError(`no user named "${values.user}"`);
      if (user.is_disabled) throw new UsageError(`user "${values.user}" is disabled`);
      const { token } = await issueSession(db, config, { userId: user.id }, ttl, 'cli');
      process.stdout.write(`${token}\n`);
      return 0;
    });
  },
};
