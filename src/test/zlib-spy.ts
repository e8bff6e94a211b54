import zlib from 'node:zlib';

/** Counts zlib's gzip calls made while `fn` runs (the module object is what src/http/compression.ts calls). */
export async function gzipCalls<T>(fn: () => Promise<T>): Promise<{ result: T; calls: number }> {
  const { gzipSync, gzip } = zlib;
  let calls = 0;
  zlib.gzipSync = ((...args: Parameters<typeof gzipSync>) => (calls++, gzipSync(...args))) as typeof gzipSync;
  zlib.gzip = ((...args: Parameters<typeof gzip>) => (calls++, (gzip as (...a: unknown[]) => void)(...args))) as typeof gzip;
  try {
    return { result: await fn(), calls };
  } finally {
    Object.assign(zlib, { gzipSync, gzip });
  }
}
