import type { UserRow } from '../db/database.ts';

/** The authenticated caller of a request. */
export type Principal =
  | {
      kind: 'user';
      sessionId: string;
      user: UserRow;
      permissions: ReadonlySet<string>;
    }
  | {
      kind: 'client';
      sessionId: string;
      clientId: string;
    };
