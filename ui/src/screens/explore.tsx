/**
 * Explore: search (or open by kind and object id) an AD or Azure entity; its node panel
 * (properties, every related list with its count, paged, or drawn as a graph that grows by
 * expanding nodes); the path finder; the Cypher box.
 */
import { useState } from 'preact/hooks';
import { ErrorText, Field, Link, Loading, Section, Table, valueText } from '../components/ui.tsx';
import { useAsync, usePaged } from '../components/hooks.ts';
import { GraphExplorer } from '../components/graph-explorer.tsx';
import { href, navigate, setParams, useRoute } from '../router.ts';
import { CypherBox } from './explore-cypher.tsx';
import { PathFinder } from './explore-paths.tsx';
import { SearchBox } from '../components/search-box.tsx';
import { ALL_TYPES, countIn, entityInfo, relatedGraph, relatedPage, typeOfHit, typeOfKind } from '../entity-types.ts';

const MODES = { object: 'Search', paths: 'Path finder', cypher: 'Cypher' } as const;

export function Explore() {
  const { params } = useRoute();
  const mode = (MODES as Record<string, string>)[params.get('mode') ?? ''] ? params.get('mode')! : 'object';
  return (
    <div class="screen">
      <h1>Explore</h1>
      <div role="tablist" aria-label="Explore views" class="tabs">
        {Object.entries(MODES).map(([id, label]) => (
          <button type="button" role="tab" aria-selected={mode === id} onClick={() => navigate(href('explore', id === 'object' ? {} : { mode: id }))}>{label}</button>
        ))}
      </div>
      {mode === 'cypher' ? <CypherBox /> : mode === 'paths' ? <PathFinder /> : <ObjectView />}
    </div>
  );
}

function ObjectView() {
  const { params } = useRoute();
  const type = ALL_TYPES[params.get('type') ?? ''] ? params.get('type')! : 'base';
  const object = params.get('object') ?? '';
  const [typed, setTyped] = useState(object);
  const open = (t: string, id: string) => navigate(href('explore', { type: t, object: id }));
  return (
    <>
      <div class="toolbar">
        <SearchBox label="Search" onPick={(hit) => open(typeOfHit(hit), hit.objectid)} />
        <details class="by-id">
          <summary>Open by object id</summary>
          <form class="toolbar" aria-label="Open an object by id" onSubmit={(e) => (e.preventDefault(), open(type, typed.trim()))}>
            <Field label="Kind">
              <select value={type} onChange={(e) => setParams({ type: e.currentTarget.value })}>
                {Object.entries(ALL_TYPES).map(([k, t]) => <option value={k}>{t.label}</option>)}
              </select>
            </Field>
            <Field label="Object id"><input value={typed} onInput={(e) => setTyped(e.currentTarget.value)} size={40} /></Field>
            <button type="submit" class="primary">Open</button>
          </form>
        </details>
      </div>
      {object ? <EntityPanel key={`${type}/${object}`} type={type} objectId={object} /> : <p class="muted">Search for a user, group, computer, domain, template… to see its properties and related objects.</p>}
    </>
  );
}

function EntityPanel({ type, objectId }: { type: string; objectId: string }) {
  const { params } = useRoute();
  const info = useAsync(() => entityInfo(type, objectId), [type, objectId]);
  const def = ALL_TYPES[type];
  const list = def.lists.find((l) => l.path === params.get('list'));
  if (info.loading) return <Loading />;
  if (info.error || !info.data) return <ErrorText error={info.error ?? 'not found'} />;
  const data = info.data;
  const name = valueText(data.props.name ?? data.props.displayname ?? objectId);
  return (
    <div class="with-detail wide">
      <div>
        {list ? <RelatedList type={type} objectId={objectId} list={list.path} graph={!list.listOnly} title={`${list.label} of ${name}`} /> : <p class="muted">Choose a related list to see it as a list or as a graph.</p>}
      </div>
      <aside class="detail" aria-label="Node panel">
        <h2 class="title">{name}</h2>
        <p class="muted">{data.kind ?? def.kind}</p>
        <h3>Related</h3>
        <ul class="menu">
          {def.lists.filter((l) => !l.hideEmpty || (countIn(data, l.count!) ?? 0) > 0).map((l) => (
            <li><Link href={href('explore', { type, object: objectId, list: l.path })} aria-current={l.path === list?.path ? 'page' : undefined}>
              {l.label} <span class="badge">{l.count ? countText(countIn(data, l.count)) : '…'}</span>
            </Link></li>
          ))}
        </ul>
        <h3>Properties</h3>
        <Properties props={data.props} />
      </aside>
    </div>
  );
}

const countText = (n: number | undefined) => (n === undefined ? '—' : n.toLocaleString());

export function Properties({ props }: { props: Record<string, unknown> }) {
  return (
    <dl class="props">
      {Object.entries(props).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => <><dt>{k}</dt><dd>{valueText(v)}</dd></>)}
    </dl>
  );
}

function RelatedList({ type, objectId, list, title, graph }: { type: string; objectId: string; list: string; title: string; graph: boolean }) {
  const { params } = useRoute();
  const view = graph && params.get('view') === 'graph' ? 'graph' : 'list';
  return (
    <Section title={title} actions={!graph ? null :
      <div role="group" aria-label="Show as">
        <button type="button" aria-pressed={view === 'list'} onClick={() => setParams({ view: undefined, node: undefined })}>List</button>
        <button type="button" aria-pressed={view === 'graph'} onClick={() => setParams({ view: 'graph' })}>Graph</button>
      </div>}>
      {view === 'graph' ? <RelatedGraph type={type} objectId={objectId} list={list} title={title} /> : <RelatedRows type={type} objectId={objectId} list={list} title={title} />}
    </Section>
  );
}

function RelatedRows({ type, objectId, list, title }: { type: string; objectId: string; list: string; title: string }) {
  const rows = usePaged((skip, limit) => relatedPage(type, objectId, list, skip, limit), [type, objectId, list], 50);
  return (
    <Table caption={title} rows={rows.items} paged={rows} rowKey={(r) => r.objectId}
      columns={[
        { label: 'Name', cell: (r) => r.name },
        { label: 'Kind', cell: (r) => r.kind },
        { label: 'Object id', cell: (r) => <code>{r.objectId}</code> },
        { label: 'Open', cell: (r) => <Link href={href('explore', { type: typeOfKind(r.kind, r.kinds), object: r.objectId })} aria-label={`Open ${r.name}`}>Open</Link> },
      ]} />
  );
}

function RelatedGraph({ type, objectId, list, title }: { type: string; objectId: string; list: string; title: string }) {
  const graph = useAsync(() => relatedGraph(type, objectId, list), [type, objectId, list]);
  if (graph.loading) return <Loading what="Drawing" />;
  if (graph.error || !graph.data) return <ErrorText error={graph.error} />;
  if (!graph.data.nodes.length) return <p class="muted">Nothing to draw: the list is empty.</p>;
  return <GraphExplorer graph={graph.data} label={title} preferredList={list} />;
}
