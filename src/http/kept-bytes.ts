/**
 * The UTF-8 bytes of a string that is kept (a cached answer), written into a shared slab instead of a Buffer of its
 * own, as Node's Buffer.from does below 4 KiB with its 8 KiB pool. Under distinct requests every answer is kept and
 * most are never asked again: a backing store per answer (Buffer.from above 4 KiB) was a few per cent of the server's
 * time with the collector's share, and a kept string instead puts the bytes in V8's heap, where the scavenger copies
 * them and the old generation grows with them. The bytes are written once here, and the socket then takes the Buffer
 * as it is (no encoding in its write).
 *
 * A slab lives as long as any of its answers does; bounded caches drop their oldest entries first, so the answers of
 * one slab, kept one after another, go at about the same time. Larger strings get a Buffer of their own.
 */
const SLAB_BYTES = 256 * 1024;
/** The longest string written into a slab (UTF-8 takes at most 3 bytes per UTF-16 code unit). */
const SLAB_MAX_CHARS = 32 * 1024;

/** Strings' UTF-8 bytes written one after another into 256 KiB slabs (a new slab when the next may not fit). */
class Slabs {
  private slab: Buffer = Buffer.allocUnsafeSlow(0);
  private used = 0;

  bytes(text: string): Buffer {
    if (text.length > SLAB_MAX_CHARS) return Buffer.from(text);
    if (this.used + text.length * 3 > this.slab.length) {
      this.slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      this.used = 0;
    }
    const start = this.used;
    const end = start + this.slab.write(text, start, 'utf8'); // room for the longest encoding: never truncated
    this.used = end + ((8 - (end % 8)) % 8); // the next one 8-byte aligned, as Node's pool does
    return this.slab.subarray(start, end);
  }
}

const kept = new Slabs();
const sent = new Slabs();

export function keptBytes(text: string): Buffer {
  return kept.bytes(text);
}

/**
 * The UTF-8 bytes of an answer that is sent once and not kept, in slabs of their own: such a Buffer is dropped once
 * written, so its slab goes soon after; in the kept answers' slabs it would hold a slab for as long as the answers
 * beside it are kept. Sent as it is (no encoding in the socket write, no backing store of its own above 4 KiB).
 */
export function sentBytes(text: string): Buffer {
  return sent.bytes(text);
}

/**
 * head + parts.join(',') + tail as one flat string: the join copies every part once, where a template around the
 * join would make a rope that is copied again, flattened, when it is written (a copy of the whole answer per request).
 * `parts` is changed (its first and last elements).
 */
export function wrapJoined(head: string, parts: string[], tail: string): string {
  if (parts.length === 0) return head + tail;
  parts[0] = head + parts[0];
  parts[parts.length - 1] += tail;
  return parts.join(',');
}
