import { createClient } from '../modules/clients/clients.service.ts';
import { CLIENT_TYPES } from '../modules/clients/clients.schema.ts';
import { ApiError } from '../http/errors.ts';
import { UsageError, type Command } from './command.ts';
import { databaseOption, openDatabase } from './database.ts';

export const clientsCreateCommand: Command = {
  path: ['clients', 'create'],
  summary: 'create a collection client (enterprise); prints its id',
  usage: '--name NAME --type sharphound|azurehound [--domain-controller HOST] [--database URL]',
  options: {
    name: { type: 'string', description: 'unique client name' },
    type: { type: 'string', description: CLIENT_TYPES.join(' | ') },
    'domain-controller': { type: 'string', description: 'domain controller the collector talks to (optional)' },
    ...databaseOption,
  },
  async run({ values }) {
    if (typeof values.name !== 'string' || !values.name.trim()) throw new UsageError('--name is required');
    const type = values.type;
    if (typeof type !== 'string' || !(CLIENT_TYPES as readonly string[]).includes(type)) {
      throw new UsageError(`--type must be one of ${CLIENT_TYPES.join(', ')}`);
    }
    const { db } = await openDatabase(values, { create: true });
    try {
      const client = await createClient(db, { name: values.name, type, domain_controller: values['domain-controller'] as string | undefined });
      process.stdout.write(`${client.id}\n`);
      return 0;
    } catch (err) {
      if (err instanceof ApiError) throw new UsageError(err.messages.join('; '));
      throw err;
    } finally {
      await db.close();
    }
  },
};
