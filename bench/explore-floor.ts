/**
 * The floor of the graph benchmark: the same questions answered in-process by a plain
 * breadth-first search over typed arrays (CSR, both directions) loaded from the same database,
 * with no server, no HTTP, no names. What the engine behind the routes is compared against.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';

export interface Floor {
  /** All shortest paths from s to t (node ids), outbound over every kind: the number of edges found, or -1. */
  shortest(s: number, t: number): number;
  /** Transitive members of a group (inbound MemberOf), counted. */
  members(group: number): number;
  nodes: number;
  edges: number;
  loadMs: number;
}

export async function loadFloor(url: string): Promise<Floor> {
  const started = performance.now();
  const starts: number[] = [];
  const ends: number[] = [];
  const member: number[] = [];
  let maxId = 0;
  const add = (s: number, e: number, kind: string) => {
    starts.push(s);
    ends.push(e);
    member.push(kind === 'MemberOf' ? 1 : 0);
    if (s > maxId) maxId = s;
    if (e > maxId) maxId = e;
  };
  if (url.startsWith('sqlite:')) {
    const db = new SQLite(url.slice('sqlite:'.length), { readonly: true });
    for (const [s, e, k] of db.prepare('select start_id, end_id, kind from edges').raw(true).iterate() as IterableIterator<[number, number, string]>) add(s, e, k);
    db.close();
  } else {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    let after = 0;
    for (;;) {
      const { rows } = await client.query<[number, number, number, string]>({ text: 'select id, start_id, end_id, kind from edges where id > $1 order by id limit 200000', values: [after], rowMode: 'array' });
      for (const [, s, e, k] of rows) add(Number(s), Number(e), k);
      if (rows.length < 200_000) break;
      after = Number(rows[rows.length - 1][0]);
    }
    await client.end();
  }
  const n = maxId + 1;
  const m = starts.length;
  const csr = (from: number[], to: number[]) => {
    const start = new Int32Array(n + 1);
    for (let i = 0; i < m; i++) start[from[i] + 1]++;
    for (let i = 0; i < n; i++) start[i + 1] += start[i];
    const fill = start.slice(0, n);
    const dst = new Int32Array(m);
    const isMember = new Uint8Array(m);
    for (let i = 0; i < m; i++) {
      const j = fill[from[i]]++;
      dst[j] = to[i];
      isMember[j] = member[i];
    }
    return { start, dst, isMember };
  };
  const out = csr(starts, ends);
  const inb = csr(ends, starts);
  const dist = new Int32Array(n);
  const mark = new Uint8Array(n);
  let queue = new Int32Array(1024);
  return {
    nodes: n,
    edges: m,
    loadMs: performance.now() - started,
    shortest(s, t) {
      dist.fill(0);
      dist[s] = 1;
      if (queue.length < n) queue = new Int32Array(n);
      let head = 0;
      let tail = 0;
      queue[tail++] = s;
      let found = 0;
      while (head < tail) {
        const u = queue[head++];
        if (found && dist[u] >= found) break;
        for (let j = out.start[u]; j < out.start[u + 1]; j++) {
          const v = out.dst[j];
          if (dist[v]) continue;
          dist[v] = dist[u] + 1;
          if (v === t) found = dist[v];
          queue[tail++] = v;
        }
      }
      if (!found) return -1;
      // Every edge u → v with dist[v] = dist[u] + 1 on a way back from t.
      mark.fill(0);
      mark[t] = 1;
      let edges = 0;
      const stack = [t];
      while (stack.length) {
        const v = stack.pop()!;
        for (let j = inb.start[v]; j < inb.start[v + 1]; j++) {
          const u = inb.dst[j];
          if (dist[u] && dist[u] + 1 === dist[v]) {
            edges++;
            if (!mark[u]) {
              mark[u] = 1;
              stack.push(u);
            }
          }
        }
      }
      return edges;
    },
    members(group) {
      mark.fill(0);
      mark[group] = 1;
      if (queue.length < n) queue = new Int32Array(n);
      let head = 0;
      let tail = 0;
      queue[tail++] = group;
      while (head < tail) {
        const u = queue[head++];
        for (let j = inb.start[u]; j < inb.start[u + 1]; j++) {
          if (!inb.isMember[j]) continue;
          const v = inb.dst[j];
          if (!mark[v]) {
            mark[v] = 1;
            queue[tail++] = v;
          }
        }
      }
      return tail - 1;
    },
  };
}
