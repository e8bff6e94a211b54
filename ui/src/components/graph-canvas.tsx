/**
 * A graph canvas for BloodHound's flat graph maps (sigma.js on graphology, WebGL): pan by dragging
 * (or arrow keys), zoom with the wheel (or + / - / 0), click a node to select it, double-click (or
 * Enter on a selected node) to expand it. Labels are drawn on the canvas, never parsed as markup; the
 * node list beside the canvas offers the same selection by keyboard.
 */
import { useEffect, useRef } from 'preact/hooks';
import Graph from 'graphology';
import Sigma from 'sigma';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import { KIND_COLOURS, type GraphModel } from './graph-model.ts';

type Positions = Map<string, { x: number; y: number }>;

/**
 * The model as a graphology graph, laid out by ForceAtlas2. Nodes already drawn keep their place as
 * the start of the layout (an expanded graph grows where it was); a new node starts beside a drawn
 * neighbour, or on a circle when it has none.
 */
function toGraph(model: GraphModel, before: Positions): Graph {
  const g = new Graph({ multi: true, type: 'directed' });
  const neighbour = new Map<string, string>();
  for (const e of model.edges) {
    if (before.has(e.source) && !before.has(e.target)) neighbour.set(e.target, e.source);
    if (before.has(e.target) && !before.has(e.source)) neighbour.set(e.source, e.target);
  }
  model.nodes.forEach((n, i) => {
    const angle = (2 * Math.PI * i) / Math.max(model.nodes.length, 1);
    const near = before.get(n.id) ?? before.get(neighbour.get(n.id) ?? '');
    const at = before.get(n.id) ?? (near ? { x: near.x + Math.cos(angle), y: near.y + Math.sin(angle) } : { x: Math.cos(angle) * 10, y: Math.sin(angle) * 10 });
    const colour = n.color && /^#[0-9a-f]{3,8}$/i.test(n.color) ? n.color : KIND_COLOURS[n.kind] ?? '#94a3b8';
    g.addNode(n.id, { ...at, size: n.isTierZero ? 9 : 7, label: n.label, color: colour });
  });
  for (const e of model.edges) {
    if (!g.hasNode(e.source) || !g.hasNode(e.target) || g.hasEdge(e.id)) continue;
    g.addDirectedEdgeWithKey(e.id, e.source, e.target, { label: e.kind, size: 2, color: '#64748b', type: 'arrow' });
  }
  const fresh = model.nodes.length - model.nodes.filter((n) => before.has(n.id)).length;
  const iterations = fresh === model.nodes.length ? (g.order > 500 ? 60 : 150) : 40;
  if (g.order > 1 && fresh > 0) forceAtlas2.assign(g, { iterations, settings: { ...forceAtlas2.inferSettings(g), gravity: 1, scalingRatio: 10 } });
  return g;
}

export function GraphCanvas({ graph, selected, onSelect, onExpand, label }: {
  graph: GraphModel; selected?: string; onSelect: (id: string | undefined) => void; onExpand?: (id: string) => void; label: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const sigmaRef = useRef<Sigma | null>(null);
  const selectedRef = useRef(selected);
  selectedRef.current = selected;
  const handlers = useRef({ onSelect, onExpand });
  handlers.current = { onSelect, onExpand };
  const positions = useRef<Positions>(new Map());

  useEffect(() => {
    const g = toGraph(graph, positions.current);
    positions.current = new Map(g.mapNodes((id, a) => [id, { x: a.x as number, y: a.y as number }]));
    const el = box.current!;
    el.removeAttribute('data-drawn');
    const renderer = new Sigma(g, box.current!, {
      renderEdgeLabels: true, defaultEdgeType: 'arrow', labelRenderedSizeThreshold: 0, stagePadding: 80, labelColor: { color: '#0f172a' },
      edgeLabelColor: { color: '#334155' }, zIndex: true,
      nodeReducer: (node, data) => (node === selectedRef.current ? { ...data, highlighted: true, size: (data.size ?? 7) + 3, zIndex: 1 } : data),
    });
    renderer.on('clickNode', ({ node }) => handlers.current.onSelect(node));
    renderer.on('doubleClickNode', ({ node, event }) => {
      event.preventSigmaDefault();
      handlers.current.onExpand?.(node);
    });
    renderer.on('clickStage', () => handlers.current.onSelect(undefined));
    // Drawn: how many nodes are on the canvas (what the browser tests wait for, rather than a timer).
    renderer.on('afterRender', () => el.setAttribute('data-drawn', String(g.order)));
    renderer.refresh();
    sigmaRef.current = renderer;
    return () => {
      renderer.kill();
      sigmaRef.current = null;
    };
  }, [graph]);

  useEffect(() => {
    sigmaRef.current?.refresh();
  }, [selected]);

  const camera = () => sigmaRef.current?.getCamera();
  const onKey = (e: KeyboardEvent) => {
    const c = camera();
    if (!c) return;
    const step = 0.1 * c.ratio;
    const moves: Record<string, () => void> = {
      '+': () => c.animatedZoom(), '=': () => c.animatedZoom(), '-': () => c.animatedUnzoom(), '0': () => c.animatedReset(),
      ArrowLeft: () => c.setState({ x: c.x - step }), ArrowRight: () => c.setState({ x: c.x + step }),
      ArrowUp: () => c.setState({ y: c.y + step }), ArrowDown: () => c.setState({ y: c.y - step }),
      Enter: () => selectedRef.current && handlers.current.onExpand?.(selectedRef.current),
    };
    if (moves[e.key]) {
      e.preventDefault();
      moves[e.key]();
    }
  };
  return (
    <div class="graph">
      <div class="graph-tools" role="toolbar" aria-label="Graph view">
        <button type="button" onClick={() => camera()?.animatedZoom()} aria-label="Zoom in">+</button>
        <button type="button" onClick={() => camera()?.animatedUnzoom()} aria-label="Zoom out">−</button>
        <button type="button" onClick={() => camera()?.animatedReset()} aria-label="Fit the whole graph">Fit</button>
      </div>
      <div ref={box} class="graph-canvas" tabIndex={0} role="application" aria-label={`${label}. Arrow keys pan, plus and minus zoom, 0 fits, Enter expands the selected node.`} onKeyDown={onKey} />
    </div>
  );
}
