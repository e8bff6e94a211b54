import { createWriteStream } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { exportOpenGraph, openSnapshot } from '../graph/export/opengraph-export.ts';
import type { Command } from './command.ts';
import { databaseOption, withDatabase } from './database.ts';

/** `scent export`: the whole graph as OpenGraph JSON (the format `scent import` reads back). */
export const exportCommand: Command = {
  path: ['export'],
  summary: 'write the whole graph as OpenGraph JSON (to stdout, or --output FILE); `scent import` reads it back',
  usage: '[--database URL] [--output FILE]',
  options: {
    ...databaseOption,
    output: { type: 'string', description: 'file to write (default: standard output)' },
  },
  async run({ values }) {
    return withDatabase(values, async ({ db }) => {
      const snapshot = await openSnapshot(db);
      const out: Writable = typeof values.output === 'string' ? createWriteStream(values.output) : process.stdout;
      await pipeline(Readable.from(exportOpenGraph(snapshot)), out, { end: out !== process.stdout });
      return 0;
    });
  },
};
