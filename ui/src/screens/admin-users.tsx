/**
 * Users and roles: the users (BloodHound's `GET /api/v2/bloodhound-users`, one answer, not paged:
 * shown 100 at a time, filtered here), create one, a user's detail: role, names and e-mail, enable /
 * disable, set a password, delete; the roles with their permissions.
 */
import { useMemo, useState } from 'preact/hooks';
import type { Role, User } from 'scent/client';
import { ErrorText, Field, Loading, Section, Table, formatTime } from '../components/ui.tsx';
import { useAction, useAsync } from '../components/hooks.ts';
import { setParams, useRoute } from '../router.ts';
import { api, session } from '../session.ts';

const SHOWN = 100;

export const listUsers = async () => (await api.request<{ data: { users: User[] } }>('GET', '/api/v2/bloodhound-users', { query: { sort_by: 'principal_name' } })).data.users;
export const listRoles = async () => (await api.request<{ data: { roles: Role[] } }>('GET', '/api/v2/roles', { query: { sort_by: 'name' } })).data.roles;

const text = (v: { string: string; valid: boolean } | string | null | undefined) => (typeof v === 'string' ? v : v?.valid ? v.string : '');
const fullName = (u: User) => [text(u.first_name), text(u.last_name)].filter(Boolean).join(' ');

export function UsersAndRoles() {
  const users = useAsync(listUsers, []);
  const roles = useAsync(listRoles, []);
  const { params } = useRoute();
  const [filter, setFilter] = useState('');
  const [shown, setShown] = useState(SHOWN);
  const matching = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return (users.data ?? []).filter((u) => !f || [u.principal_name, fullName(u), text(u.email_address)].some((s) => s.toLowerCase().includes(f)));
  }, [users.data, filter]);
  const selected = params.get('user') ?? undefined;
  const user = users.data?.find((u) => u.id === selected);
  return (
    <>
      <div class="with-detail">
        <Section title="Users">
          <ErrorText error={users.error} />
          <form class="toolbar" aria-label="Filter users" onSubmit={(e) => e.preventDefault()}>
            <Field label="Filter users"><input type="search" value={filter} placeholder="Name, user name or e-mail" onInput={(e) => (setFilter(e.currentTarget.value), setShown(SHOWN))} /></Field>
          </form>
          {users.loading ? <Loading /> : null}
          <Table caption="Users" rows={matching.slice(0, shown)} rowKey={(u) => u.id} selected={selected} onRow={(u) => setParams({ user: u.id })} empty="No users match."
            columns={[
              { label: 'User name', cell: (u) => u.principal_name },
              { label: 'Name', cell: (u) => fullName(u) || '—' },
              { label: 'E-mail', cell: (u) => text(u.email_address) || '—' },
              { label: 'Role', cell: (u) => u.roles.map((r) => r.name).join(', ') || '—' },
              { label: 'Sign-in', cell: (u) => (u.sso_provider_id.valid ? `SSO provider ${u.sso_provider_id.int32}` : u.AuthSecret ? 'password' : 'none') },
              { label: 'Status', cell: (u) => (u.is_disabled ? 'disabled' : 'enabled') },
              { label: 'Last sign-in', cell: (u) => formatTime(u.last_login) },
            ]} />
          {matching.length > shown ? <button type="button" class="link" onClick={() => setShown(shown + SHOWN)}>Show {Math.min(SHOWN, matching.length - shown)} more of {matching.length}</button> : null}
        </Section>
        {user ? <UserDetail key={user.id} user={user} roles={roles.data ?? []} onChanged={users.reload} /> : null}
      </div>
      <NewUser roles={roles.data ?? []} onCreated={(id) => (users.reload(), setParams({ user: id }))} />
      <Section title="Roles">
        <ErrorText error={roles.error} />
        <Table caption="Roles" rows={roles.data ?? []} rowKey={(r) => r.id}
          columns={[
            { label: 'Role', cell: (r) => r.name },
            { label: 'Description', cell: (r) => r.description || '—' },
            { label: 'Permissions', cell: (r) => r.permissions.map((p) => `${p.authority}/${p.name}`).sort().join(', ') || '—' },
          ]} />
      </Section>
    </>
  );
}

function RolePicker({ roles, value, onChange }: { roles: Role[]; value: string; onChange: (v: string) => void }) {
  return (
    <Field label="Role">
      <select required value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">Choose a role</option>
        {roles.map((r) => <option value={String(r.id)}>{r.name}</option>)}
      </select>
    </Field>
  );
}

function NewUser({ roles, onCreated }: { roles: Role[]; onCreated: (id: string) => void }) {
  const empty = { principal: '', first_name: '', last_name: '', email_address: '', role: '', secret: '', needs_password_reset: false };
  const [form, setForm] = useState(empty);
  const { error, busy, run } = useAction();
  const set = (k: keyof typeof form) => (e: Event) => {
    const el = e.currentTarget as HTMLInputElement;
    setForm({ ...form, [k]: el.type === 'checkbox' ? el.checked : el.value });
  };
  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const { data } = await api.request<{ data: User }>('POST', '/api/v2/bloodhound-users', { body: {
        principal: form.principal.trim(), first_name: form.first_name.trim(), last_name: form.last_name.trim(), email_address: form.email_address.trim(),
        roles: [Number(form.role)], ...(form.secret ? { secret: form.secret, needs_password_reset: form.needs_password_reset } : {}),
      } });
      setForm(empty);
      onCreated(data.id);
    });
  };
  return (
    <Section title="New user">
      <form class="form" aria-label="New user" onSubmit={submit}>
        <Field label="User name"><input required autoComplete="off" value={form.principal} onInput={set('principal')} /></Field>
        <Field label="First name"><input value={form.first_name} onInput={set('first_name')} /></Field>
        <Field label="Last name"><input value={form.last_name} onInput={set('last_name')} /></Field>
        <Field label="E-mail"><input type="email" value={form.email_address} onInput={set('email_address')} /></Field>
        <RolePicker roles={roles} value={form.role} onChange={(role) => setForm({ ...form, role })} />
        <Field label="Initial password" hint="At least 12 characters with a lower-case and an upper-case letter, a digit and a symbol. Empty: the user signs in through SSO.">
          <input type="password" autoComplete="new-password" value={form.secret} onInput={set('secret')} />
        </Field>
        <label class="check"><input type="checkbox" checked={form.needs_password_reset} onChange={set('needs_password_reset')} /> Must change it at first sign-in</label>
        <ErrorText error={error} />
        <button type="submit" class="primary" disabled={busy}>Create user</button>
      </form>
    </Section>
  );
}

function UserDetail({ user, roles, onChanged }: { user: User; roles: Role[]; onChanged: () => void }) {
  const self = session.get().current?.user?.id === user.id;
  const [form, setForm] = useState({ first_name: text(user.first_name), last_name: text(user.last_name), email_address: text(user.email_address), role: String(user.roles[0]?.id ?? '') });
  const [secret, setSecret] = useState('');
  const [status, setStatus] = useState<string | null>(null);
  const { error, busy, run } = useAction();
  const url = `/api/v2/bloodhound-users/${encodeURIComponent(user.id)}`;
  // BloodHound's PATCH takes the whole editable user (left-out SSO links are cleared): send what the user has.
  const patch = (changes: Record<string, unknown>, done: string) => run(async () => {
    await api.request('PATCH', url, { body: {
      principal: user.principal_name, first_name: form.first_name, last_name: form.last_name, email_address: form.email_address,
      roles: [Number(form.role)], is_disabled: user.is_disabled, sso_provider_id: user.sso_provider_id.valid ? user.sso_provider_id.int32 : null, ...changes,
    } });
    setStatus(done);
    onChanged();
  });
  const setPassword = (e: Event) => {
    e.preventDefault();
    run(async () => {
      await api.request('PUT', `${url}/secret`, { body: { secret, needs_password_reset: true } });
      setSecret('');
      setStatus('Password set; the user must change it at the next sign-in.');
    });
  };
  const remove = () => run(async () => {
    await api.request('DELETE', url);
    setParams({ user: undefined });
    onChanged();
  }, `Delete the user "${user.principal_name}"? Their sessions and API tokens stop working.`);
  return (
    <aside class="detail" aria-label="User detail">
      <header class="panel-head"><h3>{user.principal_name}</h3><button type="button" aria-label="Close user detail" onClick={() => setParams({ user: undefined })}>×</button></header>
      <p class="muted">{user.is_disabled ? 'Disabled' : 'Enabled'}{self ? ' · you' : ''} · created {formatTime(user.created_at)}</p>
      <form class="form" aria-label={`Edit ${user.principal_name}`} onSubmit={(e) => (e.preventDefault(), patch({}, 'Saved.'))}>
        <Field label="First name"><input value={form.first_name} onInput={(e) => setForm({ ...form, first_name: e.currentTarget.value })} /></Field>
        <Field label="Last name"><input value={form.last_name} onInput={(e) => setForm({ ...form, last_name: e.currentTarget.value })} /></Field>
        <Field label="E-mail"><input type="email" value={form.email_address} onInput={(e) => setForm({ ...form, email_address: e.currentTarget.value })} /></Field>
        <RolePicker roles={roles} value={form.role} onChange={(role) => setForm({ ...form, role })} />
        <button type="submit" class="primary" disabled={busy}>Save</button>
      </form>
      {!self ? (
        <p class="actions">
          <button type="button" disabled={busy} onClick={() => patch({ is_disabled: !user.is_disabled }, user.is_disabled ? 'Enabled.' : 'Disabled; their sessions ended.')}>{user.is_disabled ? 'Enable' : 'Disable'}</button>{' '}
          <button type="button" disabled={busy} onClick={remove}>Delete user</button>
        </p>
      ) : null}
      {!user.sso_provider_id.valid ? (
        <form class="form" aria-label={`Set a password for ${user.principal_name}`} onSubmit={setPassword}>
          <Field label="New password" hint="The user must change it at the next sign-in.">
            <input required type="password" autoComplete="new-password" value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
          </Field>
          <button type="submit" disabled={busy}>Set password</button>
        </form>
      ) : null}
      <p role="status" class="muted">{status ?? ''}</p>
      <ErrorText error={error} />
    </aside>
  );
}
