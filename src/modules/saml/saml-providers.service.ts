/**
 * Create and update of SAML providers from BloodHound's multipart form (reference §10.2): `name`, the
 * IdP's `metadata` file, and `config.auto_provision.*`. The metadata is parsed and checked here, so a
 * bad certificate is a 400 at creation, not a failed sign-in later.
 */
import type { Config } from '../../config.ts';
import type { Db } from '../../db/create-db.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { revokeSessions } from '../../auth/sessions.ts';
import type { FormBody } from '../../http/form-body.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { roleExists } from '../sso-providers/sso-providers.repository.ts';
import { slugFor, type SsoConfig } from '../sso-providers/sso-providers.schema.ts';
import { MetadataError, parseIdpMetadata } from './saml.metadata.ts';
import { findSamlById, insertSamlProvider, updateSamlRows } from './saml.repository.ts';
import { toWireSaml } from './saml.schema.ts';

const NAME_TAKEN = 'sso provider name must be unique';
const ENABLED = 'config.auto_provision.enabled';
const ROLE_ID = 'config.auto_provision.default_role_id';
const ROLE_PROVISION = 'config.auto_provision.role_provision';

/** The one value of a part (text or file), undefined when absent; two are a 400. */
function single(form: FormBody, name: string): string | undefined {
  const all = [...(form.values.get(name) ?? []), ...(form.files.get(name) ?? []).map((f) => f.text)];
  if (all.length > 1) throw badRequest(`expected only one "${name}" parameter`);
  return all[0];
}

function required(form: FormBody, name: string): string {
  const value = single(form, name);
  if (value === undefined) throw badRequest(`form is missing "${name}" parameter`);
  return value;
}

/** Go's strconv.ParseBool spellings, as BloodHound reads these parts. */
function bool(name: string, raw: string): boolean {
  if (/^(1|t|T|TRUE|true|True)$/.test(raw)) return true;
  if (/^(0|f|F|FALSE|false|False)$/.test(raw)) return false;
  throw badRequest(`"${name}" parameter could not be converted to bool`);
}

function int32(name: string, raw: string): number {
  if (!/^[+-]?\d{1,10}$/.test(raw) || Math.abs(Number(raw)) > 2 ** 31 - 1) throw badRequest(`"${name}" parameter could not be converted to int`);
  return Number(raw);
}

/** The auto-provisioning parts: absent `enabled` → undefined (create requires it); with it, the other two are required. */
function configOf(form: FormBody): SsoConfig | undefined {
  const enabled = single(form, ENABLED);
  if (enabled === undefined) return undefined;
  return {
    auto_provision: {
      enabled: bool(ENABLED, enabled),
      default_role_id: int32(ROLE_ID, required(form, ROLE_ID)),
      role_provision: bool(ROLE_PROVISION, required(form, ROLE_PROVISION)),
    },
  };
}

function nameOf(raw: string): string {
  const name = raw.trim();
  if (!name) throw badRequest('name must not be empty');
  return name;
}

function metadataOf(xml: string) {
  try {
    return parseIdpMetadata(xml);
  } catch (err) {
    if (err instanceof MetadataError) throw badRequest(err.message);
    throw err;
  }
}

async function checkRole(db: Db['kysely'], config: SsoConfig | undefined) {
  if (config?.auto_provision.enabled && !(await roleExists(db, config.auto_provision.default_role_id))) {
    throw badRequest(`"${ROLE_ID}" parameter is invalid`);
  }
}

export async function createSamlProvider(db: Db, config: Config, form: FormBody) {
  const name = nameOf(required(form, 'name'));
  const xml = required(form, 'metadata');
  const ssoConfig = configOf(form);
  if (!ssoConfig) throw badRequest(`form is missing "${ENABLED}" parameter`);
  const meta = metadataOf(xml);
  const slug = slugFor(name);
  const input = { name, slug, config: ssoConfig, issuerUri: meta.entityId, ssoUri: meta.ssoPostUrl, metadata: xml };
  try {
    const row = await db.kysely.transaction().execute(async (trx) => {
      await checkRole(trx, ssoConfig);
      return insertSamlProvider(trx, db.dialect, input);
    });
    return toWireSaml(row, { slug }, config.rootUrl);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(NAME_TAKEN); // name or slug taken (also by a concurrent create)
    throw err;
  }
}

/**
 * PATCH of a SAML provider: every part optional; the name (and with it the slug and the SP URIs), the
 * metadata, or the auto-provisioning settings are replaced. The provider's users are signed out (how
 * they sign in changed), as for an OIDC provider.
 */
export async function updateSamlProvider(db: Db, config: Config, id: number, form: FormBody) {
  const rawName = single(form, 'name');
  const name = rawName === undefined ? undefined : nameOf(rawName);
  const xml = single(form, 'metadata');
  const ssoConfig = configOf(form);
  const meta = xml === undefined ? undefined : metadataOf(xml);
  try {
    return await db.kysely.transaction().execute(async (trx) => {
      if (!(await findSamlById(trx, id, db.dialect === 'postgres'))) throw notFound();
      await checkRole(trx, ssoConfig);
      await updateSamlRows(trx, id, {
        ...(name !== undefined ? { name, slug: slugFor(name) } : {}),
        ...(ssoConfig ? { config: ssoConfig } : {}),
        ...(meta ? { metadata: xml, issuerUri: meta.entityId, ssoUri: meta.ssoPostUrl } : {}),
      });
      const users = await trx.selectFrom('users').select('id').where('sso_provider_id', '=', id).execute();
      await revokeSessions(trx, { userIds: users.map((u) => u.id) });
      const updated = (await findSamlById(trx, id))!;
      return toWireSaml(updated.saml, updated.provider, config.rootUrl);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(NAME_TAKEN);
    throw err;
  }
}
