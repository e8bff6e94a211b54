/**
 * BloodHound's saved-query files: one JSON object `{"query", "name", "description"}` per query, alone
 * or as the members of a zip. Scent also reads a JSON array of such objects (the Query Library's
 * `Queries.json` is one: its entries carry more keys, which are ignored).
 */
import yauzl from 'yauzl';

export interface TransferableQuery {
  name: string;
  query: string;
  description: string;
  /** Query Library entries only: where a repeated name comes from. */
  platforms?: string[];
}

export class TransferError extends Error {}

export function parseQueryJson(text: string): TransferableQuery[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new TransferError(`failed to unmarshal json file: ${(err as Error).message}`);
  }
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new TransferError('failed to unmarshal json file: expected an object with query, name and description');
    const o = item as Record<string, unknown>;
    const text = (k: string) => {
      const v = o[k];
      if (v === undefined || v === null) return '';
      if (typeof v !== 'string') throw new TransferError(`failed to unmarshal json file: ${k} must be a string`);
      return v;
    };
    const platforms = Array.isArray(o.platforms) ? o.platforms.filter((p): p is string => typeof p === 'string') : undefined;
    return { name: text('name'), query: text('query'), description: text('description'), ...(platforms ? { platforms } : {}) };
  });
}

/**
 * Names made distinct within one file: a repeated name gets its platforms appended ("X (Azure)"),
 * else a counter ("X (2)"). The Query Library repeats one name across platforms.
 */
export function uniqueNames(queries: TransferableQuery[]): TransferableQuery[] {
  const seen = new Set<string>();
  return queries.map((q) => {
    let name = q.name;
    if (seen.has(name) && q.platforms?.length) name = `${q.name} (${q.platforms.join(', ')})`;
    for (let i = 2; seen.has(name); i++) name = `${q.name} (${i})`;
    seen.add(name);
    return { ...q, name };
  });
}

/** Reads every member of a zip that is not macOS metadata or hidden (as BloodHound). */
export function parseQueryZip(data: Buffer): Promise<TransferableQuery[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(data, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(new TransferError(`zip: not a valid zip file`));
      const out: TransferableQuery[] = [];
      zip.on('error', () => reject(new TransferError('zip: not a valid zip file')));
      zip.on('end', () => resolve(out));
      zip.on('entry', (entry: yauzl.Entry) => {
        const name = entry.fileName;
        if (name.endsWith('/') || name.includes('__MACOSX') || name.startsWith('.') || name.split('/').pop()!.startsWith('.')) return zip.readEntry();
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(new TransferError('zip: not a valid zip file'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', () => reject(new TransferError('zip: not a valid zip file')));
          stream.on('end', () => {
            try {
              out.push(...parseQueryJson(Buffer.concat(chunks).toString('utf8')));
              zip.readEntry();
            } catch (parseErr) {
              reject(parseErr);
            }
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** The JSON file of one query, as BloodHound writes it. */
export function queryFile(q: { name: string; query: string; description: string }): string {
  return JSON.stringify({ query: q.query, name: q.name, description: q.description });
}

/** `<basename(name)>.json` (Go's filepath.Base of the name). */
export function queryFileName(name: string): string {
  const parts = name.split('/').filter((p) => p !== '');
  return `${parts.length === 0 ? (name.includes('/') ? '/' : '.') : parts[parts.length - 1]}.json`;
}

