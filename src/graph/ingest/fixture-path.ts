import { fileURLToPath } from 'node:url';

/** The SharpHound v6 fixture set (../shared/fixtures/sharphound-v6 beside the repository), for tests. */
export const FIXTURES = fileURLToPath(new URL('../../../../shared/fixtures/sharphound-v6/', import.meta.url));
