/**
 * The Cypher box: a query (typed, or picked from the saved queries, where BloodHound's Query Library
 * lives once imported, or from a few starter queries), run through `POST /api/v2/graphs/cypher`, the result as a graph or as tables.
 */
import { useState } from 'preact/hooks';
import { ScentApiError, type CypherResult } from 'scent/client';
import { ErrorText, Field, Loading, Section, Table, valueText } from '../components/ui.tsx';
import { GraphExplorer } from '../components/graph-explorer.tsx';
import { toModel, type GraphModel } from '../components/graph-model.ts';
import { setParams, useRoute } from '../router.ts';
import { api, describe } from '../session.ts';
import { STARTER_QUERIES } from './starter-queries.ts';
import { SavedQueries } from './saved-queries.tsx';

type Outcome = { result: CypherResult; model: GraphModel } | { empty: true };

export function CypherBox() {
  const { params } = useRoute();
  const [query, setQuery] = useState(params.get('q') ?? '');
  const [withProps, setWithProps] = useState(true);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const view = params.get('view') === 'table' ? 'table' : 'graph';

  const run = async (text = query) => {
    if (!text.trim()) return;
    setBusy(true);
    setError(null);
    setOutcome(null);
    try {
      const result = await api.cypher(text, withProps);
      setOutcome({ result, model: toModel(result) });
      setParams({ node: undefined });
    } catch (err) {
      // BloodHound's answer for a query that found nothing is a 404.
      if (err instanceof ScentApiError && err.status === 404) setOutcome({ empty: true });
      else setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  const pick = (text: string) => {
    setQuery(text);
    run(text);
  };

  return (
    <div class="with-detail wide">
      <div>
        <form class="form wide-form" aria-label="Cypher query" onSubmit={(e) => (e.preventDefault(), run())}>
          <Field label="Cypher" hint="Ctrl+Enter runs the query. Read-only; BloodHound's subset (docs/cypher.md).">
            <textarea rows={5} value={query} spellcheck={false} onInput={(e) => setQuery(e.currentTarget.value)}
              onKeyDown={(e) => e.key === 'Enter' && (e.ctrlKey || e.metaKey) && (e.preventDefault(), run())} />
          </Field>
          <div class="row">
            <label class="check"><input type="checkbox" checked={withProps} onChange={(e) => setWithProps(e.currentTarget.checked)} /> Include properties</label>
            <button type="submit" class="primary" disabled={busy || !query.trim()}>{busy ? 'Running…' : 'Run'}</button>
          </div>
        </form>
        <ErrorText error={error} />
        {busy ? <Loading what="Running the query" /> : null}
        {outcome && 'empty' in outcome ? <p class="notice" role="status">The query found nothing.</p> : null}
        {outcome && 'result' in outcome ? <Results result={outcome.result} model={outcome.model} view={view} /> : null}
      </div>
      <aside class="detail" aria-label="Queries">
        <h2 class="title">Queries</h2>
        <SavedQueries current={query} onPick={pick} />
        <QueryList title="Starter queries" queries={STARTER_QUERIES} onPick={pick} />
      </aside>
    </div>
  );
}

function QueryList({ title, queries, onPick }: { title: string; queries: Array<{ name: string; query: string; description?: string }>; onPick: (q: string) => void }) {
  return (
    <>
      <h3>{title}</h3>
      <ul class="menu queries">
        {queries.map((q) => (
          <li><button type="button" class="link-button" title={q.description} onClick={() => onPick(q.query)}>{q.name}</button></li>
        ))}
      </ul>
    </>
  );
}

const PAGE = 200;

function Results({ result, model, view }: { result: CypherResult; model: GraphModel; view: 'graph' | 'table' }) {
  const [shown, setShown] = useState(PAGE);
  const literals = result.literals ?? [];
  const graphable = model.nodes.length > 0;
  const mode = graphable ? view : 'table';
  return (
    <Section title={`Result: ${model.nodes.length} nodes, ${model.edges.length} relationships${literals.length ? `, ${literals.length} values` : ''}`} actions={graphable ? (
      <div role="group" aria-label="Show as">
        <button type="button" aria-pressed={mode === 'graph'} onClick={() => setParams({ view: undefined })}>Graph</button>
        <button type="button" aria-pressed={mode === 'table'} onClick={() => setParams({ view: 'table' })}>Table</button>
      </div>) : null}>
      {mode === 'graph' ? (
        <GraphExplorer graph={model} label="Query result" />
      ) : (
        <>
          {literals.length ? (
            <Table caption="Values" rows={literals.slice(0, shown).map((l, i) => ({ ...l, i }))} rowKey={(l) => l.i}
              columns={[{ label: 'Column', cell: (l) => l.key }, { label: 'Value', cell: (l) => valueText(l.value) }]} />
          ) : null}
          {model.nodes.length ? (
            <Table caption="Nodes" rows={model.nodes.slice(0, shown)} rowKey={(n) => n.id}
              columns={[
                { label: 'Name', cell: (n) => n.label },
                { label: 'Kind', cell: (n) => n.kind },
                { label: 'Object id', cell: (n) => <code>{n.objectId}</code> },
                { label: 'Tier Zero', cell: (n) => (n.isTierZero ? 'yes' : '') },
              ]} />
          ) : null}
          {model.edges.length ? (
            <Table caption="Relationships" rows={model.edges.slice(0, shown)} rowKey={(e) => e.id}
              columns={[
                { label: 'From', cell: (e) => model.nodes.find((n) => n.id === e.source)?.label ?? e.source },
                { label: 'Relationship', cell: (e) => e.kind },
                { label: 'To', cell: (e) => model.nodes.find((n) => n.id === e.target)?.label ?? e.target },
              ]} />
          ) : null}
          {Math.max(literals.length, model.nodes.length, model.edges.length) > shown
            ? <button type="button" class="link" onClick={() => setShown(shown + PAGE)}>Show {PAGE} more rows</button> : null}
        </>
      )}
    </Section>
  );
}
