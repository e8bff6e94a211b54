/**
 * Saved queries beside the Cypher box: yours, shared with you and public ones (BloodHound's Query
 * Library once imported, e.g. `scent queries import Queries.json --public`), searchable and paged;
 * save the current query; delete your own.
 */
import { useState } from 'preact/hooks';
import { ErrorText, Field } from '../components/ui.tsx';
import { useAction, usePaged } from '../components/hooks.ts';
import { api, can } from '../session.ts';

export function SavedQueries({ current, onPick }: { current: string; onPick: (query: string) => void }) {
  const [search, setSearch] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const { error, run } = useAction();
  const list = usePaged(async (skip, limit) => {
    const page = await api.listSavedQueries({ scope: 'all', skip, limit, sort_by: 'name', name: search.trim() ? `~eq:${search.trim()}` : undefined });
    return { items: page.data, count: page.count };
  }, [search], 50);
  const writable = can('saved_queries/Write');
  const save = (e: Event) => {
    e.preventDefault();
    run(async () => {
      await api.createSavedQuery({ name: name.trim(), query: current, description: description.trim() });
      setName('');
      setDescription('');
      list.reset();
    });
  };
  return (
    <>
      <h3>Saved queries{list.count !== null ? ` (${list.count})` : ''}</h3>
      <Field label="Find a saved query"><input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} /></Field>
      <ul class="menu queries" aria-label="Saved queries">
        {list.items.map((q) => (
          <li class="query-item">
            <button type="button" class="link-button" title={q.description || q.query} onClick={() => onPick(q.query)}>{q.name}</button>
            {q.scope === 'owned' && writable ? (
              <button type="button" class="small" aria-label={`Delete saved query ${q.name}`}
                onClick={() => run(async () => (await api.deleteSavedQuery(q.id), list.reset()), `Delete the saved query "${q.name}"?`)}>×</button>
            ) : <span class="badge">{q.scope}</span>}
          </li>
        ))}
      </ul>
      <ErrorText error={list.error ?? error} />
      {!list.done && !list.loading ? <button type="button" class="link" onClick={list.more}>More saved queries</button> : null}
      {writable ? (
        <form class="form" aria-label="Save the current query" onSubmit={save}>
          <Field label="Save as"><input required value={name} onInput={(e) => setName(e.currentTarget.value)} /></Field>
          <Field label="Description"><input value={description} onInput={(e) => setDescription(e.currentTarget.value)} /></Field>
          <button type="submit" disabled={!current.trim()}>Save query</button>
        </form>
      ) : null}
    </>
  );
}
