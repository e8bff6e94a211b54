import { parseDuration } from '../config.ts';
import { issueSession } from '../auth/sessions.ts';
import { findUserByName } from '../modules/users/users.repository.ts';
import { UsageError, type Command } from './command.ts';
import { databaseOption, openDatabase } from './server.command.ts';

export const tokensIssueCommand: Command = {
  path: ['tokens', 'issue'],
  summary: 'start a new session for a user; prints only the bearer JWT',
  usage: '--user NAME [--ttl 8h] [--database URL]',
  options: {
    user: { type: 'string', description: 'principal name of the user' },
    ttl: { type: 'string', description: 'lifetime: 45s, 30m, 8h, 7d (default 8h)' },
    ...databaseOption,
  },
  async run({ values }) {
    const ttl = parseDuration(String(values.ttl ?? '8h'));
    if (!ttl) throw new UsageError('--ttl must be a duration like 30m, 8h or 7d');
    if (typeof values.user !== 'string') throw new UsageError('--user is required');
    const { config, db } = await openDatabase(values);
    try {
      const user = await findUserByName(db.kysely, values.user);
      if (!user) throw new UsageError(`no user named "${values.user}"`);
      if (user.is_disabled) throw new UsageError(`user "${values.user}" is disabled`);
      const { token } = await issueSession(db, config, { userId: user.id }, ttl, 'cli');
      process.stdout.write(`${token}\n`);
      return 0;
    } finally {
      await db.close();
    }
  },
};
