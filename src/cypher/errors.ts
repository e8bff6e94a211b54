/**
 * Errors of the Cypher front end and engine. Every one becomes a 400 on the Cypher route with its
 * message; positions are written as BloodHound writes them: `line L:C` with a 1-based line and a
 * 0-based column (ANTLR's convention, which BloodHound's messages follow).
 */
export class CypherError extends Error {
  constructor(message: string) {
    super(message);
  }
}

/** `line L:C` of an offset in the query text. */
export function position(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(offset, 0), text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return `line ${line}:${end - lineStart}`;
}

export function errorAt(text: string, offset: number, message: string): CypherError {
  return new CypherError(`${position(text, offset)} ${message}`);
}
