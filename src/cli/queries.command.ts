import { importQueryFile } from '../modules/saved-queries/import.service.ts';
import { UsageError, type Command } from './command.ts';
import { databaseOption, openDatabase } from './database.ts';

export const queriesImportCommand: Command = {
  path: ['queries', 'import'],
  summary: 'load saved Cypher queries from a file: BloodHound\'s query JSON or zip, or the Query Library\'s Queries.json',
  usage: 'FILE --user NAME [--public] [--database URL]',
  positionals: 'FILE',
  options: {
    user: { type: 'string', description: 'the user (login name) who owns the imported queries' },
    public: { type: 'boolean', description: 'share every imported query with all users' },
    ...databaseOption,
  },
  async run({ values, positionals }) {
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    if (typeof values.user !== 'string' || !values.user) throw new UsageError('--user is required');
    const { db } = await openDatabase(values);
    try {
      const { created, updated } = await importQueryFile(db, positionals[0], values.user, values.public === true);
      process.stdout.write(`imported ${created + updated} queries for ${values.user} (${created} new, ${updated} updated)${values.public ? ', public' : ''}\n`);
      return 0;
    } finally {
      await db.close();
    }
  },
};
