/**
 * Explore: open an entity by object id; its node panel (properties, every related list with its
 * count, paged, or drawn as a graph). Search, paths and Cypher arrive with their routes.
 */
import { useState } from 'preact/hooks';
import type { EntityInfo } from 'scent/client';
import { ErrorText, Field, Link, Loading, Section, Table, valueText } from '../components/ui.tsx';
import { useAsync, usePaged } from '../components/hooks.ts';
import { GraphCanvas } from '../components/graph-canvas.tsx';
import { toModel } from '../components/graph-model.ts';
import { href, navigate, setParams, useRoute } from '../router.ts';
import { CypherBox } from './explore-cypher.tsx';
import { PathFinder } from './explore-paths.tsx';
import { SearchBox } from '../components/search-box.tsx';
import { ENTITY_TYPES, typeOfKind } from '../entity-types.ts';
import { api } from '../session.ts';

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
  const type = ENTITY_TYPES[params.get('type') ?? ''] ? params.get('type')! : 'base';
  const object = params.get('object') ?? '';
  const [typed, setTyped] = useState(object);
  const open = (t: string, id: string) => navigate(href('explore', { type: t, object: id }));
  return (
    <>
      <div class="toolbar">
        <SearchBox label="Search" onPick={(hit) => open(typeOfKind(hit.type), hit.objectid)} />
        <details class="by-id">
          <summary>Open by object id</summary>
          <form class="toolbar" aria-label="Open an object by id" onSubmit={(e) => (e.preventDefault(), open(type, typed.trim()))}>
            <Field label="Kind">
              <select value={type} onChange={(e) => setParams({ type: e.currentTarget.value })}>
                {Object.entries(ENTITY_TYPES).map(([k, t]) => <option value={k}>{t.label}</option>)}
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
  const info = useAsync(() => api.getEntity(type, objectId), [type, objectId]);
  const def = ENTITY_TYPES[type];
  const list = def.lists.find((l) => l.path === params.get('list'));
  if (info.loading) return <Loading />;
  if (info.error || !info.data) return <ErrorText error={info.error ?? 'not found'} />;
  const data = info.data;
  const name = valueText(data.props.name ?? objectId);
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
          {def.lists.map((l) => (
            <li><Link href={href('explore', { type, object: objectId, list: l.path })} aria-current={l.path === list?.path ? 'page' : undefined}>
              {l.label} <span class="badge">{l.count ? countOf(data, l.count) : '…'}</span>
            </Link></li>
          ))}
        </ul>
        <h3>Properties</h3>
        <Properties props={data.props} />
      </aside>
    </div>
  );
}

const countOf = (data: EntityInfo, key: string) => (typeof data[key] === 'number' ? (data[key] as number).toLocaleString() : '—');

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
  const rows = usePaged(async (skip, limit) => {
    const page = await api.listEntityRelated(type, objectId, list, { skip, limit });
    return { items: page.data, count: page.count };
  }, [type, objectId, list], 50);
  return (
    <Table caption={title} rows={rows.items} paged={rows} rowKey={(r) => r.objectID}
      columns={[
        { label: 'Name', cell: (r) => r.name || r.objectID },
        { label: 'Kind', cell: (r) => r.label },
        { label: 'Object id', cell: (r) => <code>{r.objectID}</code> },
        { label: 'Open', cell: (r) => <Link href={href('explore', { type: typeOfKind(r.label), object: r.objectID })} aria-label={`Open ${r.name || r.objectID}`}>Open</Link> },
      ]} />
  );
}

function RelatedGraph({ type, objectId, list, title }: { type: string; objectId: string; list: string; title: string }) {
  const { params } = useRoute();
  const graph = useAsync(async () => toModel(await api.getEntityRelatedGraph(type, objectId, list)), [type, objectId, list]);
  const node = params.get('node') ?? undefined;
  if (graph.loading) return <Loading what="Drawing" />;
  if (graph.error || !graph.data) return <ErrorText error={graph.error} />;
  const nodes = graph.data.nodes;
  const chosen = nodes.find((n) => n.id === node);
  const expand = (id: string) => {
    const n = nodes.find((x) => x.id === id);
    if (n?.objectId) navigate(href('explore', { type: typeOfKind(n.kind), object: n.objectId }));
  };
  return (
    <div class="graph-layout">
      <GraphCanvas graph={graph.data} selected={node} label={title} onSelect={(id) => setParams({ node: id })} onExpand={expand} />
      <div class="graph-side">
        <label class="field">
          <span class="field-label">Nodes ({nodes.length})</span>
          <select size={8} value={node ?? ''} onChange={(e) => setParams({ node: e.currentTarget.value || undefined })}>
            {nodes.map((n) => <option value={n.id}>{n.label} ({n.kind})</option>)}
          </select>
        </label>
        {chosen ? (
          <div aria-label="Selected node">
            <h4>{chosen.label}</h4>
            <p class="muted">{chosen.kind}{chosen.isTierZero ? ' · Tier Zero' : ''}</p>
            <button type="button" onClick={() => expand(chosen.id)}>Expand</button>
            <Properties props={chosen.props} />
          </div>
        ) : <p class="muted">Select a node to see its properties.</p>}
      </div>
    </div>
  );
}
