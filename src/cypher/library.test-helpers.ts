import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_FIXTURES } from '../test/fixture-path.ts';

export interface LibraryQuery {
  name: string;
  guid: string;
  platforms: string[];
  category: string;
  description: string | null;
  query: string;
}

/** BloodHound's Query Library (../shared/fixtures/bloodhound-query-library/Queries.json). */
export const LIBRARY: LibraryQuery[] = JSON.parse(readFileSync(join(SHARED_FIXTURES, 'bloodhound-query-library', 'Queries.json'), 'utf8'));
export const AD_QUERIES = LIBRARY.filter((q) => q.platforms.includes('Active Directory'));
