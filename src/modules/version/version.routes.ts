import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { route } from '../../http/route.ts';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

/** BloodHound's answer (cmd/api/src/api/v2/version.go): API versions, server version, edition. */
export const versionOf = (edition: string) => ({
  API: { current_version: 'v2', deprecated_version: 'none' },
  server_version: `v${pkg.version}`,
  product_edition: edition,
});

const VersionSchema = Type.Object({
  API: Type.Object({ current_version: Type.String(), deprecated_version: Type.String() }),
  server_version: Type.String(),
  product_edition: Type.String({ enum: ['enterprise', 'community'] }),
});

export const versionRoutes = [
  route({
    method: 'GET',
    url: '/api/version',
    // BloodHound requires authentication here; clients call it first to check their credentials.
    config: { access: { permissions: [] } },
    schema: {
      tags: ['meta'],
      summary: 'API and server version (any signed-in user; bearer or signed request)',
      response: { 200: DataEnvelope(VersionSchema), ...errorResponses(400, 401, 403) },
    },
    handler: async (request) => ({ data: versionOf(request.server.config.edition) }),
  }),
];
