import type { Migration } from 'kysely';
import * as m0001 from './0001-foundation.ts';
import * as m0002 from './0002-graph.ts';
import * as m0003 from './0003-asset-group-tags.ts';
import * as m0004 from './0004-collection.ts';
import * as m0005 from './0005-auth-tokens.ts';
import * as m0006 from './0006-data-quality.ts';
import * as m0007 from './0007-file-upload.ts';
import * as m0008 from './0008-graph-write-speed.ts';
import * as m0009 from './0009-change-notifications.ts';
import * as m0011 from './0011-narrow-change-notifications.ts';
import * as m0012 from './0012-users-provider-no-action.ts';
import * as m0013 from './0013-audit-logs.ts';
import * as m0014 from './0014-users-unique-email.ts';
import * as m0015 from './0015-feature-flags-parameters.ts';
import * as m0020 from './0020-asset-group-tag-fields.ts';
import * as m0021 from './0021-collection-client-fields.ts';
import * as m0022 from './0022-data-quality-counters.ts';
import * as m0030 from './0030-default-tier-zero-selectors.ts';
import * as m0040 from './0040-graph-changes.ts';
import * as m0041 from './0041-node-search.ts';
import * as m0042 from './0042-search-names-only.ts';
import * as m0043 from './0043-search-order.ts';
import * as m0050 from './0050-saved-queries.ts';
import * as m0051 from './0051-selector-cypher-nodes.ts';
import * as m0070 from './0070-saml.ts';

/** Every migration, in order. Files are frozen once committed: add a new one instead of editing. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-graph': m0002,
  '0003-asset-group-tags': m0003,
  '0004-collection': m0004,
  '0005-auth-tokens': m0005,
  '0006-data-quality': m0006,
  '0007-file-upload': m0007,
  '0008-graph-write-speed': m0008,
  '0009-change-notifications': m0009,
  '0011-narrow-change-notifications': m0011,
  '0012-users-provider-no-action': m0012,
  '0013-audit-logs': m0013,
  '0014-users-unique-email': m0014,
  '0015-feature-flags-parameters': m0015,
  '0020-asset-group-tag-fields': m0020,
  '0021-collection-client-fields': m0021,
  '0022-data-quality-counters': m0022,
  '0030-default-tier-zero-selectors': m0030,
  '0040-graph-changes': m0040,
  '0041-node-search': m0041,
  '0042-search-names-only': m0042,
  '0043-search-order': m0043,
  '0050-saved-queries': m0050,
  '0051-selector-cypher-nodes': m0051,
  '0070-saml': m0070,
};
