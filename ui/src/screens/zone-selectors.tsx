/**
 * A tag's selectors: paged with their member counts; one selector's detail (seeds, edit, disable /
 * enable, delete, the members it selected, paged); a new selector from object ids or a Cypher query.
 */
import { useState } from 'preact/hooks';
import type { AssetGroupTag, AssetGroupTagSelector } from 'scent/client';
import { ErrorText, Field, Section, Table, formatTime } from '../components/ui.tsx';
import { useAction, usePaged } from '../components/hooks.ts';
import { setParams, useRoute } from '../router.ts';
import { api, can } from '../session.ts';

const EXPANSION: Record<number, string> = { 0: 'the seeds only', 1: 'seeds, their members and containers', 2: 'seeds and their members (child)', 3: 'seeds and what contains them (parent)' };
const SEED_TYPE: Record<number, string> = { 1: 'object id', 2: 'Cypher' };

export function Selectors({ tag, onChanged }: { tag: AssetGroupTag; onChanged: () => void }) {
  const { params } = useRoute();
  const selectors = usePaged(async (skip, limit) => {
    const page = await api.listSelectors(tag.id, { skip, limit, counts: true, sort_by: 'name' });
    return { items: page.data.selectors, count: page.count };
  }, [tag.id], 50);
  const changed = () => (selectors.reset(), onChanged());
  const selectedId = Number(params.get('selector')) || undefined;
  const selected = selectors.items.find((s) => s.id === selectedId);
  return (
    <div class="with-detail">
      <div>
        <Table caption={`Selectors of ${tag.name}`} rows={selectors.items} paged={selectors} rowKey={(s) => s.id} selected={selectedId}
          onRow={(s) => setParams({ selector: s.id })} empty="This tag has no selectors."
          columns={[
            { label: 'Name', cell: (s) => s.name },
            { label: 'Selects', cell: (s) => EXPANSION[s.expansion] ?? s.expansion },
            { label: 'Seeds', cell: (s) => `${s.seeds.length} ${SEED_TYPE[s.seeds[0]?.type] ?? ''}` },
            { label: 'Members', cell: (s) => s.counts?.members.toLocaleString() ?? '—', numeric: true },
            { label: 'State', cell: (s) => (s.disabled_at ? 'disabled' : 'enabled') + (s.is_default ? ' · default' : '') },
          ]} />
        {can('graphdb/Write') ? <CreateSelector tag={tag} onCreated={changed} /> : null}
      </div>
      {selected ? <SelectorDetail key={selected.id} tag={tag} selector={selected} onChanged={changed} /> : null}
    </div>
  );
}

function SelectorDetail({ tag, selector, onChanged }: { tag: AssetGroupTag; selector: AssetGroupTagSelector; onChanged: () => void }) {
  const { error, busy, run } = useAction();
  const [editing, setEditing] = useState(false);
  const [form, setForm] = useState({ name: selector.name, description: selector.description, expansion: selector.expansion });
  const members = usePaged(async (skip, limit) => {
    const page = await api.listSelectorMembers(tag.id, selector.id, { skip, limit, sort_by: 'name' });
    return { items: page.data.members, count: page.count };
  }, [tag.id, selector.id], 50);
  const writable = can('graphdb/Write');
  const change = (body: Parameters<typeof api.updateSelector>[2]) => run(async () => {
    await api.updateSelector(tag.id, selector.id, body);
    setEditing(false);
    onChanged();
  });
  return (
    <aside class="detail" aria-label="Selector detail">
      <header class="panel-head">
        <h3>{selector.name}</h3>
        <button type="button" aria-label="Close selector detail" onClick={() => setParams({ selector: undefined })}>×</button>
      </header>
      <dl class="props">
        <dt>Description</dt><dd>{selector.description || '—'}</dd>
        <dt>Selects</dt><dd>{EXPANSION[selector.expansion] ?? selector.expansion}</dd>
        <dt>State</dt><dd>{selector.disabled_at ? `disabled ${formatTime(selector.disabled_at)}` : 'enabled'}</dd>
        <dt>Updated</dt><dd>{formatTime(selector.updated_at)} by {selector.updated_by}</dd>
        {selector.seeds.map((seed) => <><dt>Seed ({SEED_TYPE[seed.type] ?? seed.type})</dt><dd><code class="pre">{seed.value}</code></dd></>)}
      </dl>
      {writable ? (
        <div class="actions wrap">
          <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>Edit</button>
          {selector.allow_disable ? (
            <button type="button" disabled={busy} onClick={() => change({ disabled: !selector.disabled_at })}>{selector.disabled_at ? 'Enable' : 'Disable'}</button>
          ) : null}
          {!selector.is_default ? (
            <button type="button" disabled={busy} onClick={() => run(async () => {
              await api.deleteSelector(tag.id, selector.id);
              setParams({ selector: undefined });
              onChanged();
            }, `Delete the selector "${selector.name}"? Its members leave ${tag.name} unless another selector selects them.`)}>Delete</button>
          ) : null}
        </div>
      ) : null}
      {editing ? (
        <form class="form" aria-label={`Edit selector ${selector.name}`} onSubmit={(e) => (e.preventDefault(), change(form))}>
          <Field label="Name"><input required value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} /></Field>
          <Field label="Description"><input value={form.description} onInput={(e) => setForm({ ...form, description: e.currentTarget.value })} /></Field>
          <Field label="Selects">
            <select value={form.expansion} onChange={(e) => setForm({ ...form, expansion: Number(e.currentTarget.value) })}>
              {Object.entries(EXPANSION).map(([v, l]) => <option value={v}>{l}</option>)}
            </select>
          </Field>
          <button type="submit" class="primary" disabled={busy}>Save changes</button>
        </form>
      ) : null}
      <ErrorText error={error} />
      <h4>Selected members</h4>
      <Table caption={`Members selected by ${selector.name}`} rows={members.items} paged={members} rowKey={(m) => m.id} empty="It selects nothing."
        columns={[{ label: 'Name', cell: (m) => m.name }, { label: 'Kind', cell: (m) => m.primary_kind }, { label: 'Source', cell: (m) => ({ 1: 'seed', 2: 'child', 3: 'parent' } as Record<number, string>)[m.source] ?? m.source }]} />
    </aside>
  );
}

function CreateSelector({ tag, onCreated }: { tag: AssetGroupTag; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [expansion, setExpansion] = useState(2);
  const [seedType, setSeedType] = useState(1);
  const [seeds, setSeeds] = useState('');
  const { error, busy, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => {
      const values = seedType === 2 ? [seeds.trim()] : seeds.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
      await api.createSelector(tag.id, { name: name.trim(), description, expansion, seeds: values.map((value) => ({ type: seedType, value })) });
      setName('');
      setDescription('');
      setSeeds('');
      onCreated();
    });
  };
  return (
    <Section title="New selector">
      <form class="form" onSubmit={submit} aria-label={`New selector for ${tag.name}`}>
        <Field label="Name"><input required value={name} onInput={(e) => setName(e.currentTarget.value)} /></Field>
        <Field label="Description"><input value={description} onInput={(e) => setDescription(e.currentTarget.value)} /></Field>
        <Field label="Selects">
          <select value={expansion} onChange={(e) => setExpansion(Number(e.currentTarget.value))}>
            {Object.entries(EXPANSION).map(([v, l]) => <option value={v}>{l}</option>)}
          </select>
        </Field>
        <fieldset>
          <legend>Seeds are</legend>
          <label class="check"><input type="radio" name="seed-type" checked={seedType === 1} onChange={() => setSeedType(1)} /> Object ids</label>
          <label class="check"><input type="radio" name="seed-type" checked={seedType === 2} onChange={() => setSeedType(2)} /> A Cypher query</label>
        </fieldset>
        <Field label={seedType === 2 ? 'Seed query' : 'Seed object ids'} hint={seedType === 2 ? 'Read-only; the nodes it returns are the seeds' : 'One per line (SIDs, GUIDs or tenant object ids)'}>
          <textarea required rows={3} value={seeds} onInput={(e) => setSeeds(e.currentTarget.value)} />
        </Field>
        <ErrorText error={error} />
        <button type="submit" class="primary" disabled={busy}>Create selector</button>
      </form>
    </Section>
  );
}
