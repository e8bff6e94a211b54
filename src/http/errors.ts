/**
 * The small typed error set of the wire contract (CONTRACT.md §1). Anything thrown that is not an
 * ApiError becomes a 500 (or 503/504 when it is recognised as a database outage or a deadline).
 */
export const Messages = {
  badFilter: 'there are errors in the query parameter filters specified',
  /** The contract's text, then which parameter and why (`name=foo:bar (a string operand ...)`). */
  badFilterIn: (name: string, detail: string) => `there are errors in the query parameter filters specified: ${name}${detail}`,
  columnNotFilterable: (name: string) => `the specified column cannot be filtered: ${name}`,
  predicateNotSupported: (name: string, predicate: string) =>
    `the specified filter predicate is not supported for this column: ${name} ${predicate}`,
  notSortable: (name: string) => `column format does not support sorting: ${name}`,
  emptySort: 'empty sort_by parameter supplied',
  malformedParam: (name: string) => `query parameter "${name}" is malformed`,
  idMalformed: 'id is malformed',
  contentType: 'content type must be application/json',
  invalidCharacters: 'the request contains characters that cannot be stored (NUL)',
  decodePayload: 'could not decode payload',
  badPrefer: (why: string) => `Prefer header has an invalid value: ${why}`,
  authInvalid: 'authentication is invalid',
  notAuthorized: 'not authorized',
  userDisabled: 'user is disabled',
  notFound: 'resource not found',
  methodNotAllowed: 'method not allowed',
  tooLarge: 'request body is too large',
  headersTooLarge: 'request headers are too large',
  malformedRequest: 'the request is not valid HTTP',
  tooManyRequests: 'too many requests',
  internal: 'an internal error has occurred that is preventing the service from servicing this request',
  dbUnavailable: 'the database is unavailable',
  timedOut: 'request timed out',
} as const;

/**
 * The hint for a time whose offset `+` arrived as a space (an unencoded `+` in a URL query means a
 * space): ` (...)` to append to a message, or '' when the text does not look like that.
 */
export function offsetPlusHint(text: string): string {
  const m = /^(.*T\d\d:\d\d(?::\d\d(?:\.\d+)?)?) (\d\d:\d\d)$/.exec(text);
  return m ? ` (a "+" in a query string is read as a space: send the offset encoded, ${m[1]}%2B${m[2]})` : '';
}

export class ApiError extends Error {
  readonly status: number;
  readonly messages: string[];
  constructor(status: number, message: string | string[]) {
    const messages = Array.isArray(message) ? message : [message];
    super(messages.join('; '));
    this.status = status;
    this.messages = messages;
  }
}

export const badRequest = (message: string | string[]) => new ApiError(400, message);
export const unauthorized = () => new ApiError(401, Messages.authInvalid);
export const forbidden = (message: string = Messages.notAuthorized) => new ApiError(403, message);
export const notFound = () => new ApiError(404, Messages.notFound);
export const conflict = (message: string) => new ApiError(409, message);

/** Thrown when the request's Prefer deadline passed; rendered as 504. */
export class DeadlineError extends Error {
  constructor() {
    super('deadline exceeded');
  }
}
