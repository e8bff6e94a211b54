/**
 * Ingest of a set of files (CLI and upload jobs): each JSON document in its own transaction (a
 * failed one leaves nothing behind, the others land). What the graph holds afterwards is what
 * BloodHound's ingest makes of the same files; the analysis (post-processing) is the caller's next step.
 */
import type { Db } from '../../db/create-db.ts';
import { IdCache } from '../bulk/id-cache.ts';
import { ingestJson, typeFromFileName, type FileResult, type IngestOptions } from './ingest-file.ts';
import { stopParseThread } from './parallel-ingest.ts';
import { sourcesOf, type SourceFile } from './sources.ts';

export interface FileOutcome {
  name: string;
  result?: FileResult;
  /** Readable reason when the file failed (nothing of it was written). */
  error?: string;
}

/** A file on disk (JSON or zip), or one JSON document given as a stream of chunks. */
export type InputFile =
  | { path: string; /** Name shown in results (default: the file's base name). */ name?: string }
  | { name: string; open(): Promise<AsyncIterable<Buffer>>; size?: number };

export interface IngestRunOptions extends IngestOptions {
  onFileStart?: (name: string) => void;
  onFileDone?: (outcome: FileOutcome) => void;
}

/**
 * SharpHound files in the order that describes objects before others point at them (fewer
 * placeholders to complete later); files whose name tells no type keep their place after those.
 */
const TYPE_ORDER = ['domains', 'ous', 'containers', 'gpos', 'users', 'groups', 'computers', 'rootcas', 'aiacas',
  'enterprisecas', 'ntauthstores', 'certtemplates', 'issuancepolicies', 'sessions', 'deleted'];
const rank = (f: InputFile) => {
  const t = typeFromFileName('path' in f ? f.path : f.name);
  return t ? TYPE_ORDER.indexOf(t) : TYPE_ORDER.length;
};

export async function ingestFiles(db: Db, files: InputFile[], options: IngestRunOptions = {}): Promise<FileOutcome[]> {
  try {
    return await ingestAll(db, [...files].sort((a, b) => rank(a) - rank(b)), options);
  } finally {
    await stopParseThread();
  }
}

async function ingestAll(db: Db, files: InputFile[], runOptions: IngestRunOptions): Promise<FileOutcome[]> {
  // Edges of later documents mostly name objects of earlier ones: their ids stay known.
  const options = { ids: new IdCache(), ...runOptions };
  const outcomes: FileOutcome[] = [];
  for (const file of files) {
    try {
      const sources: AsyncIterable<SourceFile> | SourceFile[] = 'open' in file ? [file] : sourcesOf(file.path, file.name);
      for await (const source of sources) {
        options.onFileStart?.(source.name);
        let outcome: FileOutcome;
        try {
          outcome = { name: source.name, result: await ingestJson(db, source.name, () => source.open(), options, source.size) };
        } catch (err) {
          outcome = { name: source.name, error: describe(err) };
        }
        outcomes.push(outcome);
        options.onFileDone?.(outcome);
      }
    } catch (err) {
      const outcome = { name: file.name ?? ('path' in file ? file.path : ''), error: describe(err) };
      outcomes.push(outcome);
      options.onFileDone?.(outcome);
    }
  }
  return outcomes;
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  if (e?.code === 'ENOENT') return 'file not found';
  if (e?.message && /zip|central directory|signature/i.test(e.message)) return `invalid zip archive: ${e.message}`;
  return e?.message ?? String(err);
}
