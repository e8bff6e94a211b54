import { fileURLToPath } from 'node:url';

/** The SharpHound v6 fixture set (../shared/fixtures/sharphound-v6 beside the repository), for tests. */
export const FIXTURES = fileURLToPath(new URL('../../../shared/fixtures/sharphound-v6/', import.meta.url));

/** BloodHound's own graphs for the same input (../shared/fixtures/bloodhound-graphify), for tests. */
export const GRAPHIFY = fileURLToPath(new URL('../../../shared/fixtures/bloodhound-graphify/', import.meta.url));

/** Every shared fixture set (../shared/fixtures beside the repository), for tests: `join(SHARED_FIXTURES, set, file)`. */
export const SHARED_FIXTURES = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
