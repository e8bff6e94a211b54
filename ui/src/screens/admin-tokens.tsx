/** Your API tokens: create (the key is shown once), list, delete. */
import { useState } from 'preact/hooks';
import type { AuthToken } from 'scent/client';
import { ErrorText, Field, Loading, Section, Table, formatTime } from '../components/ui.tsx';
import { useAction, useAsync } from '../components/hooks.ts';
import { api } from '../session.ts';

export function ApiTokens() {
  const tokens = useAsync(() => api.listTokens({ sort_by: '-created_at' }), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<(AuthToken & { key: string }) | null>(null);
  const { error, run } = useAction();
  const create = (e: Event) => {
    e.preventDefault();
    run(async () => {
      setCreated(await api.createToken({ token_name: name.trim() }));
      setName('');
      tokens.reload();
    });
  };
  const remove = (t: AuthToken) => run(async () => {
    await api.deleteToken(t.id);
    tokens.reload();
  }, `Delete the token "${t.name}"? Anything using it stops working.`);
  return (
    <>
      {created ? (
        <Section title="New token: copy the key now">
          <p class="notice" role="alert">This is the only time the key is shown. Store it where your tool reads it.</p>
          <dl class="props">
            <dt>Token id</dt><dd><code>{created.id}</code></dd>
            <dt>Key</dt><dd><code class="secret">{created.key}</code></dd>
          </dl>
          <button type="button" onClick={() => navigator.clipboard?.writeText(created.key)}>Copy key</button>{' '}
          <button type="button" onClick={() => setCreated(null)}>I have stored it</button>
        </Section>
      ) : null}
      <Section title="API tokens">
        <ErrorText error={tokens.error ?? error} />
        {tokens.loading ? <Loading /> : null}
        <Table caption="API tokens" rows={tokens.data ?? []} rowKey={(t) => t.id} empty="No API tokens."
          columns={[
            { label: 'Name', cell: (t) => t.name },
            { label: 'Id', cell: (t) => <code>{t.id}</code> },
            { label: 'Created', cell: (t) => formatTime(t.created_at) },
            { label: 'Last used', cell: (t) => formatTime(t.last_access) },
            { label: 'Actions', cell: (t) => <button type="button" aria-label={`Delete token ${t.name}`} onClick={() => remove(t)}>Delete</button> },
          ]} />
        <form class="form inline" onSubmit={create} aria-label="New API token">
          <Field label="Token name"><input required value={name} onInput={(e) => setName(e.currentTarget.value)} /></Field>
          <button type="submit" class="primary">Create token</button>
        </form>
      </Section>
    </>
  );
}
