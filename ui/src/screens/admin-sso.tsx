/** SSO providers: list, create OIDC, delete (showing the users it affected). SAML arrives with its routes. */
import { useState } from 'preact/hooks';
import type { SsoProvider, User } from 'scent/client';
import { ErrorText, Field, Loading, Section, Table, formatTime } from '../components/ui.tsx';
import { useAction, useAsync } from '../components/hooks.ts';
import { api } from '../session.ts';

export function SsoProviders() {
  const providers = useAsync(() => api.listSsoProviders(), []);
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
            { label: 'Issuer', cell: (p) => p.details?.issuer ?? '—' },
            { label: 'Client id', cell: (p) => p.details?.client_id ?? '—' },
            { label: 'Callback URI', cell: (p) => <code>{p.callback_uri}</code> },
            { label: 'Auto-provision', cell: (p) => (p.config?.auto_provision.enabled ? `yes (role ${p.config.auto_provision.default_role_id})` : 'no') },
            { label: 'Created', cell: (p) => formatTime(p.created_at) },
            { label: 'Actions', cell: (p) => <button type="button" aria-label={`Delete provider ${p.name}`} onClick={() => remove(p)}>Delete</button> },
          ]} />
      </Section>
      <NewOidc onCreated={providers.reload} />
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
