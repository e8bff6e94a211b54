/**
 * SSO providers: list, create OIDC, create SAML (from the IdP's metadata file; when the server has
 * `POST /api/v2/sso-providers/saml`), delete (showing the users it affected).
 */
import { useState } from 'preact/hooks';
import type { SsoProvider, User } from 'scent/client';
import { ErrorText, Field, Loading, Section, Table, formatTime } from '../components/ui.tsx';
import { useAction, useAsync } from '../components/hooks.ts';
import { api, postForm } from '../session.ts';

/** A provider's details as either type sends them (OIDC: issuer, client id; SAML: the IdP issuer and the SP's URLs). */
type Details = { issuer?: string; client_id?: string; idp_issuer_uri?: string; sp_metadata_uri?: string; sp_acs_uri?: string };
const details = (p: SsoProvider) => (p.details ?? {}) as Details;

/** Whether the server offers SAML provider creation (its OpenAPI document lists the route). */
async function hasSaml(): Promise<boolean> {
  const spec = await api.request<{ paths?: Record<string, unknown> }>('GET', '/api/v2/spec');
  return !!spec.paths?.['/api/v2/sso-providers/saml'];
}

export function SsoProviders() {
  const providers = useAsync(() => api.listSsoProviders(), []);
  const saml = useAsync(() => hasSaml().catch(() => false), []);
  const { error, run } = useAction();
  const [deleted, setDeleted] = useState<{ name: string; users: User[] } | null>(null);
  const remove = (p: SsoProvider) => run(async () => {
    const { affected_users } = await api.deleteSsoProvider(p.id);
    setDeleted({ name: p.name, users: affected_users });
    providers.reload();
  }, `Delete the provider "${p.name}"? Its users are kept, signed out, and must sign in another way.`);
  return (
    <>
      {deleted ? (
        <Section title={`Deleted "${deleted.name}"`} actions={<button type="button" onClick={() => setDeleted(null)}>Dismiss</button>}>
          <p role="status">{deleted.users.length ? `${deleted.users.length} user(s) signed in through it; they were signed out and unlinked:` : 'No user signed in through it.'}</p>
          {deleted.users.length ? <ul aria-label="Affected users">{deleted.users.map((u) => <li>{u.principal_name}{u.email_address.valid ? ` <${u.email_address.string}>` : ''}</li>)}</ul> : null}
        </Section>
      ) : null}
      <Section title="SSO providers">
        <ErrorText error={providers.error ?? error} />
        {providers.loading ? <Loading /> : null}
        <Table caption="SSO providers" rows={providers.data ?? []} rowKey={(p) => p.id} empty="No SSO providers."
          columns={[
            { label: 'Name', cell: (p) => p.name },
            { label: 'Type', cell: (p) => p.type },
            { label: 'Issuer', cell: (p) => details(p).issuer ?? details(p).idp_issuer_uri ?? '—' },
            { label: 'Client id', cell: (p) => details(p).client_id ?? '—' },
            { label: 'Callback URI', cell: (p) => <code>{p.callback_uri}</code> },
            { label: 'SP metadata', cell: (p) => (details(p).sp_metadata_uri ? <code>{details(p).sp_metadata_uri}</code> : '—') },
            { label: 'Auto-provision', cell: (p) => (p.config?.auto_provision.enabled ? `yes (role ${p.config.auto_provision.default_role_id})` : 'no') },
            { label: 'Created', cell: (p) => formatTime(p.created_at) },
            { label: 'Actions', cell: (p) => <button type="button" aria-label={`Delete provider ${p.name}`} onClick={() => remove(p)}>Delete</button> },
          ]} />
      </Section>
      <NewOidc onCreated={providers.reload} />
      {saml.data ? <NewSaml onCreated={providers.reload} /> : null}
    </>
  );
}

function NewOidc({ onCreated }: { onCreated: () => void }) {
  const [form, setForm] = useState({ name: '', issuer: '', client_id: '', auto: false, role: '' });
  const { error, run } = useAction();
  const set = (k: keyof typeof form) => (e: Event) => {
    const el = e.currentTarget as HTMLInputElement;
    setForm({ ...form, [k]: el.type === 'checkbox' ? el.checked : el.value });
  };
  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => {
      await api.createOidcProvider({
        name: form.name.trim(), issuer: form.issuer.trim(), client_id: form.client_id.trim(),
        config: { auto_provision: { enabled: form.auto, default_role_id: form.auto ? Number(form.role) || 0 : 0, role_provision: false } },
      });
      setForm({ name: '', issuer: '', client_id: '', auto: false, role: '' });
      onCreated();
    });
  };
  return (
    <Section title="New OIDC provider">
      <form class="form" onSubmit={submit} aria-label="New OIDC provider">
        <Field label="Name"><input required value={form.name} onInput={set('name')} /></Field>
        <Field label="Issuer URL"><input required type="url" placeholder="https://idp.example.com" value={form.issuer} onInput={set('issuer')} /></Field>
        <Field label="Client id"><input required value={form.client_id} onInput={set('client_id')} /></Field>
        <label class="check"><input type="checkbox" checked={form.auto} onChange={set('auto')} /> Create users on first sign-in</label>
        {form.auto ? <Field label="Role id for new users"><input required type="number" min={1} value={form.role} onInput={set('role')} /></Field> : null}
        <ErrorText error={error} />
        <button type="submit" class="primary">Create provider</button>
      </form>
    </Section>
  );
}

function NewSaml({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [metadata, setMetadata] = useState<File | null>(null);
  const [auto, setAuto] = useState({ enabled: false, role: '', roleProvision: false });
  const [formKey, setFormKey] = useState(0);
  const { error, busy, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    if (!metadata) return;
    run(async () => {
      // BloodHound's multipart form: the name, the IdP metadata file, the auto-provision settings.
      const form = new FormData();
      form.set('name', name.trim());
      form.set('metadata', metadata, metadata.name);
      form.set('config.auto_provision.enabled', String(auto.enabled));
      form.set('config.auto_provision.default_role_id', String(auto.enabled ? Number(auto.role) || 0 : 0));
      form.set('config.auto_provision.role_provision', String(auto.enabled && auto.roleProvision));
      await postForm('/api/v2/sso-providers/saml', form);
      setName('');
      setMetadata(null);
      setAuto({ enabled: false, role: '', roleProvision: false });
      setFormKey((k) => k + 1); // clears the file input
      onCreated();
    });
  };
  return (
    <Section title="New SAML provider">
      <form key={formKey} class="form" onSubmit={submit} aria-label="New SAML provider">
        <Field label="SAML provider name"><input required value={name} onInput={(e) => setName(e.currentTarget.value)} /></Field>
        <Field label="IdP metadata (XML file)" hint="Your identity provider's SAML metadata: its entity id, an SSO service with the HTTP-POST binding and a signing certificate.">
          <input required type="file" accept=".xml,application/xml,text/xml,application/samlmetadata+xml" onChange={(e) => setMetadata(e.currentTarget.files?.[0] ?? null)} />
        </Field>
        <label class="check"><input type="checkbox" checked={auto.enabled} onChange={(e) => setAuto({ ...auto, enabled: e.currentTarget.checked })} /> Create users on first sign-in</label>
        {auto.enabled ? (
          <>
            <Field label="Role id for new SAML users"><input required type="number" min={1} value={auto.role} onInput={(e) => setAuto({ ...auto, role: e.currentTarget.value })} /></Field>
            <label class="check"><input type="checkbox" checked={auto.roleProvision} onChange={(e) => setAuto({ ...auto, roleProvision: e.currentTarget.checked })} /> Take the role from the IdP's assertion</label>
          </>
        ) : null}
        <ErrorText error={error} />
        <button type="submit" class="primary" disabled={busy || !metadata}>Create SAML provider</button>
      </form>
    </Section>
  );
}
