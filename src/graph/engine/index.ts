/**
 * The one graph engine (STYLE.md point 14): entity routes, controllers, selectors, analysis and the
 * Cypher executor all ask it. Storage and indexes hide behind it (README "Graph engine").
 *
 *   const view = await graphEngine(db).view();   // a consistent, current snapshot
 *   view.edgesOf(id, 'inbound', ['MemberOf']);   // neighbours by kind and direction
 *   view.members(groupId);                        // membership expansion (primary groups included)
 *   view.walk({ roots, direction, kinds, expand, step });
 *   view.shortestPaths([from], [to], kinds);
 *   view.expand(starts, { direction, kinds, minDepth, maxDepth, exclude }, visit);   // Cypher patterns
 *   view.shortestTree(root, { direction, kinds, maxDepth }, all, stop);   // Cypher shortestPath
 *   await view.nodes(ids, { properties: true });  // names, kinds, properties in batches
 *   view.nodeFromRow(row, { properties: true });  // the same from a nodes row already read
 */
export { graphEngine, GraphEngine } from './engine.ts';
export {
  GraphView, GraphLimitError,
  type Direction, type Edge, type EdgeRecord, type Hop, type Kinds, type NodeRecord, type NodeRow, type Path, type WalkPlan, type WalkResult,
} from './view.ts';
export { TIER_ZERO_KIND, OWNED_KIND, tagKind } from './tags.ts';
