/**
 * ACL inheritance of an edge (BloodHound FetchACLInheritancePath): for an inherited ACE edge
 * (`isacl`, `isinherited`, an `inheritancehash`), the Domain / OU / Container holding the node that
 * carries that hash among its `inheritancehashes`, reached up the Contains chain of the edge's
 * target, provided no node on the way below it is ACL-protected; then the edge itself.
 */
import type { Edge, GraphView } from '../../graph/engine/index.ts';

export async function aclInheritance(view: GraphView, edge: Edge): Promise<Edge[]> {
  const [record] = await view.edgeDetails([edge.id]);
  const hash = record?.properties.inheritancehash;
  if (record?.properties.isacl !== true || record.properties.isinherited !== true || typeof hash !== 'string' || hash === '') return [];
  const w = view.walk({
    roots: [edge.end], direction: 'inbound', kinds: ['Contains'],
    step: (e) => view.hasAnyKind(e.start, ['Domain', 'OU', 'Container']),
  });
  const props = new Map((await view.nodes(w.reached, { properties: true })).map((n) => [n.id, n.properties ?? {}]));
  const carries = (id: number) => {
    const hashes = props.get(id)?.inheritancehashes;
    return Array.isArray(hashes) && hashes.includes(hash);
  };
  const kept = w.reached.filter((source) => {
    if (source === edge.end || !carries(source)) return false;
    // Every node from just below the source down to the edge's target must not be ACL-protected.
    for (let at = source, down = w.parentEdge(at); down; down = w.parentEdge(at)) {
      at = down.end;
      if (props.get(at)?.isaclprotected === true) return false;
    }
    return true;
  });
  if (kept.length === 0) return [];
  return [...w.edgesTowards(kept), edge];
}
