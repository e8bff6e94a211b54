/**
 * A graph answer on the canvas with the node list and the selected node beside it, and expansion in
 * place: a node's related list (its inbound control by default, or any list of its kind with a graph
 * form) is fetched as a graph and added to what is drawn. Double-click or Enter on the canvas expands
 * the selected node; "Open" shows it in the node panel.
 */
import { useRef, useState } from 'preact/hooks';
import { GraphCanvas } from './graph-canvas.tsx';
import { merge, type GraphModel, type ModelNode } from './graph-model.ts';
import { ErrorText, Link, valueText } from './ui.tsx';
import { href, setParams, useRoute } from '../router.ts';
import { ALL_TYPES, relatedGraph, typeOfKind, type EntityList } from '../entity-types.ts';
import { describe } from '../session.ts';

/** The lists a node can be expanded with: those of its kind that have a graph form. */
function expansions(node: ModelNode): EntityList[] {
  return ALL_TYPES[typeOfKind(node.kind, node.kinds)].lists.filter((l) => !l.listOnly);
}

/** The list used when none is chosen: the one the view shows if the node's kind has it, else inbound control, else the first. */
function defaultList(node: ModelNode, preferred?: string): string | undefined {
  const lists = expansions(node);
  return (lists.find((l) => l.path === preferred) ?? lists.find((l) => l.path === 'controllers' || l.path === 'inbound-control') ?? lists[0])?.path;
}

export function GraphExplorer({ graph, label, preferredList }: { graph: GraphModel; label: string; preferredList?: string }) {
  const { params } = useRoute();
  // What has been drawn from this graph answer (expansions added, the last one's outcome); a new answer starts afresh.
  type Grown = { from: GraphModel; model: GraphModel; status: string | null; error: string | null };
  const [grown, setGrown] = useState<Grown>({ from: graph, model: graph, status: null, error: null });
  const { model, status, error } = grown.from === graph ? grown : { model: graph, status: null, error: null };
  const [busy, setBusy] = useState(false);
  const latest = useRef(graph);
  latest.current = graph;
  // The list chosen to expand with, for the node it was chosen for (another node starts from its default).
  const [choice, setChoice] = useState<{ node: string; list: string } | null>(null);
  const node = params.get('node') ?? undefined;
  const chosen = model.nodes.find((n) => n.id === node);

  const expand = async (id: string, with_?: string) => {
    const n = model.nodes.find((x) => x.id === id);
    const path = n && (with_ ?? defaultList(n, preferredList));
    if (!n || !path || !n.objectId || busy) return;
    const type = typeOfKind(n.kind, n.kinds);
    const what = ALL_TYPES[type].lists.find((l) => l.path === path)?.label ?? path;
    const from = graph;
    // An answer that arrives after the graph was replaced is dropped.
    const set = (next: Omit<Grown, 'from'>) => latest.current === from && setGrown({ from, ...next });
    setBusy(true);
    set({ model, status: `Expanding ${n.label}…`, error: null });
    try {
      const { model: next, added } = merge(model, await relatedGraph(type, n.objectId, path));
      set({ model: next, status: `${what} of ${n.label}: ${added === 0 ? 'nothing new' : `${added} node${added === 1 ? '' : 's'} added`}.`, error: null });
    } catch (err) {
      set({ model, status: null, error: `${what} of ${n.label}: ${describe(err)}` });
    } finally {
      setBusy(false);
    }
  };

  const lists = chosen ? expansions(chosen) : [];
  const current = chosen ? (choice?.node === chosen.id ? choice.list : defaultList(chosen, preferredList)) : undefined;
  return (
    <div class="graph-layout">
      <GraphCanvas graph={model} selected={node} label={label} onSelect={(id) => setParams({ node: id })} onExpand={(id) => expand(id)} />
      <div class="graph-side">
        <label class="field">
          <span class="field-label">Nodes ({model.nodes.length})</span>
          <select size={8} value={node ?? ''} onChange={(e) => setParams({ node: e.currentTarget.value || undefined })}>
            {model.nodes.map((n) => <option value={n.id}>{n.label} ({n.kind})</option>)}
          </select>
        </label>
        <p class="muted" role="status">{status ?? ''}</p>
        <ErrorText error={error} />
        {chosen ? (
          <div aria-label="Selected node">
            <h4>{chosen.label}</h4>
            <p class="muted">{chosen.kind}{chosen.isTierZero ? ' · Tier Zero' : ''}</p>
            {lists.length && chosen.objectId ? (
              <form class="expand" aria-label="Expand the selected node" onSubmit={(e) => (e.preventDefault(), expand(chosen.id, current))}>
                <label class="field">
                  <span class="field-label">Expand with</span>
                  <select value={current} onChange={(e) => setChoice({ node: chosen.id, list: e.currentTarget.value })}>
                    {lists.map((l) => <option value={l.path}>{l.label}</option>)}
                  </select>
                </label>
                <button type="submit" disabled={busy}>Expand</button>
              </form>
            ) : null}
            {chosen.objectId ? <p><Link href={href('explore', { type: typeOfKind(chosen.kind, chosen.kinds), object: chosen.objectId })}>Open in the node panel</Link></p> : null}
            <dl class="props">{Object.entries(chosen.props).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => <><dt>{k}</dt><dd>{valueText(v)}</dd></>)}</dl>
          </div>
        ) : <p class="muted">Select a node to see its properties; double-click it (or Enter) to expand it.</p>}
      </div>
    </div>
  );
}
