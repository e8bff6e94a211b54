/**
 * A streaming JSON scanner for collector files. It walks the top-level object byte by byte, tracking
 * strings, escapes and depth, and hands out:
 * - one `element` event per element of the arrays at the "streamed" paths (e.g. `data`,
 *   `graph.nodes`), each parsed on its own with JSON.parse;
 * - one `value` event per other member of the top-level object (e.g. `meta`), parsed whole.
 * Objects on the way to a streamed path (e.g. `graph`) are descended into. Memory holds one element
 * at a time, whatever the file size. A UTF-8 byte order mark is skipped.
 */
export type StreamEvent =
  | { type: 'element'; path: string; value: unknown }
  | { type: 'value'; path: string; value: unknown };

export class JsonFormatError extends Error {}

const enum C {
  Quote = 0x22, Backslash = 0x5c, OpenBrace = 0x7b, CloseBrace = 0x7d, OpenBracket = 0x5b,
  CloseBracket = 0x5d, Colon = 0x3a, Comma = 0x2c, Space = 0x20, Tab = 0x09, Lf = 0x0a, Cr = 0x0d,
}

interface Frame {
  kind: 'object' | 'array';
  path: string;
  /** object: 'key' | 'colon' | 'value' | 'next'; array: 'value' | 'next' */
  expect: 'key' | 'colon' | 'value' | 'next';
  key?: string;
  /** array frames: elements are emitted one by one */
  streamed?: boolean;
  first: boolean;
}

const isSpace = (c: number) => c === C.Space || c === C.Lf || c === C.Cr || c === C.Tab;
const BOM = [0xef, 0xbb, 0xbf];
const MAX_ELEMENT_BYTES = 512 * 1024 * 1024;

export class JsonStreamScanner {
  private readonly streamed: Set<string>;
  private readonly descend: Set<string>;
  private stack: Frame[] = [];
  private started = false;
  private done = false;
  /** Bytes of the UTF-8 BOM matched so far; -1 once past it. */
  private bom = 0;
  // key collection (outer structure)
  private keyBytes: number[] | null = null;
  private keyEscape = false;
  // value capture
  private capturing = false;
  private capDepth = 0;
  private capInString = false;
  private capEscape = false;
  private capScalar = false;
  private capPieces: Buffer[] = [];
  private capBytes = 0;
  private capTarget: { type: 'element' | 'value'; path: string } = { type: 'value', path: '' };
  /** Total bytes consumed (for progress). */
  bytes = 0;
  /** Objects descended into on the way to a streamed path (e.g. `graph`): present even when empty. */
  readonly entered = new Set<string>();

  constructor(streamedPaths: string[]) {
    this.streamed = new Set(streamedPaths);
    this.descend = new Set(streamedPaths.flatMap((p) => p.split('.').slice(0, -1).map((_, i, a) => a.slice(0, i + 1).join('.'))));
  }

  push(chunk: Buffer): StreamEvent[] {
    const out: StreamEvent[] = [];
    let i = 0;
    const n = chunk.length;
    this.bytes += n;
    while (this.bom >= 0 && i < n) {
      if (chunk[i] !== BOM[this.bom]) {
        if (this.bom > 0) throw new JsonFormatError('the file is not UTF-8 JSON');
        this.bom = -1;
        break;
      }
      i++;
      if (++this.bom === 3) this.bom = -1;
    }
    let capStart = this.capturing ? 0 : -1;
    while (i < n) {
      if (this.capturing) {
        const end = this.scanCapture(chunk, i);
        if (end < 0) {
          this.keep(chunk.subarray(capStart));
          return out;
        }
        const tail = chunk.subarray(capStart, end);
        out.push(this.finishCapture(tail));
        capStart = -1;
        i = end;
        continue;
      }
      if (this.keyBytes) {
        i = this.scanKey(chunk, i);
        continue;
      }
      const c = chunk[i];
      if (isSpace(c)) {
        i++;
        continue;
      }
      if (this.done) throw new JsonFormatError('unexpected data after the end of the JSON document');
      if (this.startsCapture(c)) {
        capStart = i;
        continue; // the capture loop consumes from i
      }
      this.outer(c);
      i++;
    }
    return out;
  }

  end(): void {
    if (this.capturing && this.capScalar && this.capDepth === 0) return void this.finishCapture(Buffer.alloc(0));
    if (!this.done) throw new JsonFormatError(this.started ? 'unexpected end of JSON input' : 'the file is empty');
  }

  private keep(piece: Buffer) {
    this.capPieces.push(piece);
    this.capBytes += piece.length;
    if (this.capBytes > MAX_ELEMENT_BYTES) throw new JsonFormatError('a single JSON element is larger than 512 MiB');
  }

  /** Decides at a non-space byte in the outer structure whether a captured value starts here. */
  private startsCapture(c: number): boolean {
    const top = this.stack[this.stack.length - 1];
    if (!top || top.expect !== 'value') return false;
    if (top.kind === 'array') {
      if (c === C.CloseBracket && top.first) return false;
      this.beginCapture({ type: 'element', path: top.path });
      return true;
    }
    const path = top.path ? `${top.path}.${top.key}` : top.key!;
    if (this.streamed.has(path) && c === C.OpenBracket) return false;
    if (this.descend.has(path) && c === C.OpenBrace) return false;
    this.beginCapture({ type: 'value', path });
    return true;
  }

  private beginCapture(target: { type: 'element' | 'value'; path: string }) {
    this.capturing = true;
    this.capDepth = 0;
    this.capInString = false;
    this.capEscape = false;
    this.capScalar = false;
    this.capPieces = [];
    this.capBytes = 0;
    this.capTarget = target;
    this.capFirst = true;
  }
  private capFirst = true;

  /** Scans the captured value from i; returns the index just past its end, or -1 if it continues. */
  private scanCapture(buf: Buffer, i: number): number {
    const n = buf.length;
    if (this.capFirst) {
      this.capFirst = false;
      const c = buf[i];
      if (c !== C.OpenBrace && c !== C.OpenBracket && c !== C.Quote) this.capScalar = true;
    }
    if (this.capScalar) {
      while (i < n) {
        const c = buf[i];
        if (c === C.Comma || c === C.CloseBrace || c === C.CloseBracket || isSpace(c)) return i;
        i++;
      }
      return -1;
    }
    let depth = this.capDepth;
    let inString = this.capInString;
    if (this.capEscape) {
      this.capEscape = false;
      i++;
    }
    while (i < n) {
      const c = buf[i];
      if (inString) {
        if (c === C.Backslash) {
          if (i + 1 >= n) {
            this.capEscape = true;
            i++;
            break;
          }
          i += 2;
          continue;
        }
        if (c === C.Quote) {
          inString = false;
          if (depth === 0) return i + 1;
        }
        i++;
        continue;
      }
      if (c === C.Quote) inString = true;
      else if (c === C.OpenBrace || c === C.OpenBracket) depth++;
      else if (c === C.CloseBrace || c === C.CloseBracket) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    this.capDepth = depth;
    this.capInString = inString;
    return -1;
  }

  private finishCapture(tail: Buffer): StreamEvent {
    const pieces = this.capPieces;
    const text = pieces.length ? Buffer.concat([...pieces, tail]).toString('utf8') : tail.toString('utf8');
    this.capturing = false;
    this.capPieces = [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new JsonFormatError(`invalid JSON in ${this.capTarget.path}: ${(err as Error).message}`);
    }
    const top = this.stack[this.stack.length - 1];
    top.expect = 'next';
    top.first = false;
    return { type: this.capTarget.type, path: this.capTarget.path, value };
  }

  private scanKey(buf: Buffer, i: number): number {
    const bytes = this.keyBytes!;
    while (i < buf.length) {
      const c = buf[i++];
      if (this.keyEscape) {
        this.keyEscape = false;
        bytes.push(c);
      } else if (c === C.Backslash) {
        this.keyEscape = true;
        bytes.push(c);
      } else if (c === C.Quote) {
        const top = this.stack[this.stack.length - 1];
        top.key = JSON.parse(`"${Buffer.from(bytes).toString('utf8')}"`) as string;
        top.expect = 'colon';
        this.keyBytes = null;
        return i;
      } else {
        bytes.push(c);
        if (bytes.length > 4096) throw new JsonFormatError('object key too long');
      }
    }
    return i;
  }

  /** One structural byte of the outer (non-captured) structure. */
  private outer(c: number): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      if (this.started) throw new JsonFormatError('unexpected data after the end of the JSON document');
      if (c !== C.OpenBrace) throw new JsonFormatError('the file is not a JSON object');
      this.started = true;
      this.stack.push({ kind: 'object', path: '', expect: 'key', first: true });
      return;
    }
    const bad = () => new JsonFormatError(`unexpected character '${String.fromCharCode(c)}' in ${top.path || 'the top-level object'}`);
    if (top.kind === 'object') {
      switch (top.expect) {
        case 'key':
          if (c === C.Quote) this.keyBytes = [];
          else if (c === C.CloseBrace && top.first) this.pop();
          else throw bad();
          return;
        case 'colon':
          if (c !== C.Colon) throw bad();
          top.expect = 'value';
          return;
        case 'value': {
          const path = top.path ? `${top.path}.${top.key}` : top.key!;
          top.expect = 'next';
          top.first = false;
          if (c === C.OpenBracket) this.stack.push({ kind: 'array', path, expect: 'value', streamed: true, first: true });
          else if (c === C.OpenBrace) {
            this.stack.push({ kind: 'object', path, expect: 'key', first: true });
            this.entered.add(path);
          } else throw bad();
          return;
        }
        case 'next':
          if (c === C.Comma) top.expect = 'key';
          else if (c === C.CloseBrace) this.pop();
          else throw bad();
          return;
      }
    }
    // array frame (streamed): elements are captured; here only ',' and ']'
    if (c === C.CloseBracket && (top.expect === 'next' || top.first)) return this.pop();
    if (c === C.Comma && top.expect === 'next') {
      top.expect = 'value';
      return;
    }
    throw bad();
  }

  private pop() {
    this.stack.pop();
    if (this.stack.length === 0) this.done = true;
  }
}
