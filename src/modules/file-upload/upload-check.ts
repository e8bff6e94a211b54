/**
 * What BloodHound checks of an uploaded file before it accepts it (reference §11, check 5): a JSON
 * body must be well-formed JSON whose top-level object is the classic format (`meta`/`data`) or the
 * generic one (`graph`), not both; a zip body must start with a zip local-file header (its entries
 * are checked at ingest). The check runs on the bytes as they stream in; a failure is a 400 with
 * BloodHound's text (where BloodHound answers a missing tag or zip header with a 500, Scent answers
 * 400: it is the caller's file, not the server, that is wrong).
 */
import { badRequest } from '../../http/errors.ts';
import { JsonFormatError, JsonStreamScanner } from '../../graph/ingest/json-stream.ts';

export const UploadMessages = {
  notJson: 'Error saving ingest file: file is not valid json',
  noTags: 'Error saving ingest file: no valid meta tag or data tag found',
  both: 'Error saving ingest file: request must use either the classic format (meta/data) or the generic format (graph), not both',
  noZipHeader: 'Error saving ingest file: failed to find zip file header',
} as const;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** Passes the chunks through, checking them as a file of the given media type; throws a 400 at the first sign it is not one. */
export async function* checkedUpload(mediaType: string, chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  if (mediaType === 'application/json') {
    const scanner = new JsonStreamScanner(['data', 'graph.nodes', 'graph.edges']);
    let classic = false;
    const note = (events: ReturnType<JsonStreamScanner['push']>) => {
      for (const e of events) if (e.path === 'meta' || e.path === 'data') classic = true;
    };
    try {
      for await (const chunk of chunks) {
        note(scanner.push(chunk));
        yield chunk;
      }
      scanner.end();
    } catch (err) {
      if (err instanceof JsonFormatError) throw badRequest(UploadMessages.notJson);
      throw err;
    }
    const generic = scanner.entered.has('graph');
    if (classic && generic) throw badRequest(UploadMessages.both);
    if (!classic && !generic) throw badRequest(UploadMessages.noTags);
    return;
  }
  let head = Buffer.alloc(0);
  for await (const chunk of chunks) {
    if (head.length < ZIP_MAGIC.length) {
      head = Buffer.concat([head, chunk.subarray(0, ZIP_MAGIC.length - head.length)]);
      if (head.length === ZIP_MAGIC.length && !head.equals(ZIP_MAGIC)) throw badRequest(UploadMessages.noZipHeader);
    }
    yield chunk;
  }
  if (head.length < ZIP_MAGIC.length) throw badRequest(UploadMessages.noZipHeader);
}
