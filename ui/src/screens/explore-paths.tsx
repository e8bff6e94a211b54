/** Path finder: every shortest path between two objects (chosen by search), as a graph and as steps. */
import { useState } from 'preact/hooks';
import { ScentApiError, type SearchHit } from 'scent/client';
import { ErrorText, Loading, Section, Table } from '../components/ui.tsx';
import { useAsync } from '../components/hooks.ts';
import { SearchBox } from '../components/search-box.tsx';
import { GraphExplorer } from '../components/graph-explorer.tsx';
import { toModel } from '../components/graph-model.ts';
import { setParams, useRoute } from '../router.ts';
import { api } from '../session.ts';

export function PathFinder() {
  const { params } = useRoute();
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  const [names, setNames] = useState<{ from?: string; to?: string }>({});
  const choose = (end: 'from' | 'to') => (hit: SearchHit) => {
    setNames({ ...names, [end]: hit.name });
    setParams({ [end]: hit.objectid, node: undefined }, false);
  };
  return (
    <>
      <form class="toolbar" aria-label="Path ends" onSubmit={(e) => e.preventDefault()}>
        <SearchBox label="From" initial={names.from ?? from} onPick={choose('from')} />
        <SearchBox label="To" initial={names.to ?? to} onPick={choose('to')} />
        <button type="button" disabled={!from || !to} onClick={() => setParams({ from: to, to: from, node: undefined })}>Swap</button>
      </form>
      {from && to ? <Paths key={`${from}>${to}`} from={from} to={to} /> : <p class="muted">Choose where the paths start and where they end.</p>}
    </>
  );
}

function Paths({ from, to }: { from: string; to: string }) {
  const paths = useAsync(async () => {
    try {
      return toModel(await api.shortestPath(from, to));
    } catch (err) {
      if (err instanceof ScentApiError && err.status === 404) return null; // BloodHound's "no path"
      throw err;
    }
  }, [from, to]);
  if (paths.loading) return <Loading what="Finding paths" />;
  if (paths.error) return <ErrorText error={paths.error} />;
  if (!paths.data) return <p class="notice" role="status">There is no path from the first object to the second.</p>;
  const model = paths.data;
  const label = (id: string) => model.nodes.find((n) => n.id === id)?.label ?? id;
  return (
    <Section title={`Shortest paths: ${model.nodes.length} nodes, ${model.edges.length} relationships`}>
      <GraphExplorer graph={model} label="Shortest paths" />
      <Table caption="Steps of the paths" rows={model.edges} rowKey={(e) => e.id}
        columns={[{ label: 'From', cell: (e) => label(e.source) }, { label: 'Relationship', cell: (e) => e.kind }, { label: 'To', cell: (e) => label(e.target) }]} />
    </Section>
  );
}
