/**
 * Input files: a JSON document, or a .zip of them (recognised by its signature). Each JSON member
 * of a zip is its own file (own transaction, own result). Bytes are streamed, never held whole.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

export interface SourceFile {
  name: string;
  /** May be called again (a document is re-read when it must move to the in-process path). */
  open(): Promise<AsyncIterable<Buffer>>;
  /** Bytes, when known. */
  size?: number;
}

const CHUNK = 1024 * 1024;

export async function isZipFile(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(4), 0, 4, 0);
    return bytesRead === 4 && buffer.readUInt32LE(0) === 0x04034b50;
  } finally {
    await fh.close();
  }
}

/** The JSON documents in a file on disk (itself, or the members of a zip). */
export async function* sourcesOf(path: string, displayName = basename(path)): AsyncGenerator<SourceFile> {
  if (!(await isZipFile(path))) {
    yield { name: displayName, size: (await stat(path)).size, open: async () => createReadStream(path, { highWaterMark: CHUNK }) };
    return;
  }
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (err, z) => (err ? reject(err) : resolve(z))));
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        zip.once('entry', resolve);
        zip.once('end', () => resolve(null));
        zip.once('error', reject);
        zip.readEntry();
      });
      zip.removeAllListeners('entry').removeAllListeners('end').removeAllListeners('error');
      if (!entry) return;
      if (entry.fileName.endsWith('/') || /(^|\/)(__MACOSX|\.)/.test(entry.fileName)) continue;
      yield {
        name: `${displayName}/${entry.fileName}`,
        size: entry.uncompressedSize,
        open: () => new Promise<Readable>((resolve, reject) =>
          zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream)))),
      };
    }
  } finally {
    zip.close();
  }
}
