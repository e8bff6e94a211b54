/**
 * Privilege Zones: the tags (tiers, labels, owned), a tag's members (filter, sort, infinite scroll,
 * detail) and its selectors (create, delete).
 */
import { useState } from 'preact/hooks';
import type { AssetGroupTag, AssetGroupTagMember } from 'scent/client';
import { ErrorText, Field, Link, Loading, Table, valueText } from '../components/ui.tsx';
import { useAsync, usePaged } from '../components/hooks.ts';
import { href, setParams, useRoute } from '../router.ts';
import { api } from '../session.ts';
import { Selectors } from './zone-selectors.tsx';
import { typeOfKind } from '../entity-types.ts';

const TAG_TYPE: Record<number, string> = { 1: 'Tier', 2: 'Label', 3: 'Owned' };
const SORTS: Record<string, string> = { name: 'Name A–Z', '-name': 'Name Z–A', objectid: 'Object id', id: 'Graph id' };

export function Zones() {
  const { params } = useRoute();
  const tags = useAsync(() => api.listAssetGroupTags({ counts: true }), []);
  const list = [...(tags.data ?? [])].sort((a, b) => a.type - b.type || (a.position ?? 1e9) - (b.position ?? 1e9) || a.name.localeCompare(b.name));
  const tagId = Number(params.get('tag')) || list[0]?.id;
  const tag = list.find((t) => t.id === tagId);
  return (
    <div class="screen split">
      <nav class="side" aria-label="Tags">
        <h1>Privilege Zones</h1>
        <ErrorText error={tags.error} />
        {tags.loading ? <Loading /> : null}
        <ul class="menu">
          {list.map((t) => (
            <li><Link href={href('zones', { tag: t.id })} aria-current={t.id === tagId ? 'page' : undefined}>
              <span>{t.name}</span> <span class="badge" title={`${TAG_TYPE[t.type] ?? t.type}${t.counts ? `, ${t.counts.members} members, ${t.counts.selectors} selectors` : ''}`}>
                {TAG_TYPE[t.type] ?? t.type}{t.counts ? ` · ${t.counts.members.toLocaleString()}` : ''}
              </span>
            </Link></li>
          ))}
        </ul>
      </nav>
      <div class="content">{tag ? <TagView key={tag.id} tag={tag} onChanged={tags.reload} /> : null}</div>
    </div>
  );
}

/** `onChanged`: a selector changed, so the tags' member counts did too. */
function TagView({ tag, onChanged }: { tag: AssetGroupTag; onChanged: () => void }) {
  const { params } = useRoute();
  const tab = params.get('tab') === 'selectors' ? 'selectors' : 'members';
  return (
    <>
      <h2 class="title">{tag.name}</h2>
      {tag.description ? <p class="muted">{tag.description}</p> : null}
      <div role="tablist" aria-label="Tag views" class="tabs">
        {(['members', 'selectors'] as const).map((t) => (
          <button type="button" role="tab" aria-selected={tab === t} onClick={() => setParams({ tab: t === 'members' ? undefined : t, member: undefined, selector: undefined })}>
            {t === 'members' ? 'Members' : 'Selectors'}
          </button>
        ))}
      </div>
      {tab === 'members' ? <Members tag={tag} /> : <Selectors tag={tag} onChanged={onChanged} />}
    </>
  );
}

function Members({ tag }: { tag: AssetGroupTag }) {
  const { params } = useRoute();
  const name = params.get('name') ?? '';
  const kind = params.get('kind') ?? '';
  const sort = SORTS[params.get('sort') ?? ''] ? params.get('sort')! : 'name';
  const [typed, setTyped] = useState(name);
  const counts = useAsync(() => api.getAssetGroupTagMemberCounts(tag.id), [tag.id]);
  const members = usePaged(async (skip, limit) => {
    const page = await api.listAssetGroupTagMembers(tag.id, {
      skip, limit, sort_by: sort, name: name ? `~eq:${name}` : undefined, primary_kind: kind ? `eq:${kind}` : undefined,
    });
    return { items: page.data.members, count: page.count };
  }, [tag.id, name, kind, sort], 100);
  const selected = Number(params.get('member')) || undefined;
  const member = members.items.find((m) => m.id === selected);
  return (
    <div class="with-detail">
      <div>
        <form class="toolbar" aria-label="Filter members" onSubmit={(e) => (e.preventDefault(), setParams({ name: typed.trim() }))}>
          <Field label="Name contains">
            <input type="search" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} onBlur={() => setParams({ name: typed.trim() })} />
          </Field>
          <Field label="Kind">
            <select value={kind} onChange={(e) => setParams({ kind: e.currentTarget.value })}>
              <option value="">All kinds{counts.data ? ` (${counts.data.total_count})` : ''}</option>
              {Object.entries(counts.data?.counts ?? {}).map(([k, n]) => <option value={k}>{k} ({n})</option>)}
            </select>
          </Field>
          <Field label="Sort">
            <select value={sort} onChange={(e) => setParams({ sort: e.currentTarget.value })}>
              {Object.entries(SORTS).map(([v, l]) => <option value={v}>{l}</option>)}
            </select>
          </Field>
        </form>
        <Table caption={`Members of ${tag.name}`} rows={members.items} paged={members} rowKey={(m) => m.id} selected={selected}
          onRow={(m) => setParams({ member: m.id })} empty="No members match."
          columns={[
            { label: 'Name', cell: (m) => m.name },
            { label: 'Kind', cell: (m) => m.primary_kind },
            { label: 'Object id', cell: (m) => <code>{m.object_id}</code> },
            { label: 'Environment', cell: (m) => m.environment_id || '—' },
            { label: 'Source', cell: (m) => ({ 1: 'seed', 2: 'child', 3: 'parent' } as Record<number, string>)[m.source] ?? m.source },
          ]} />
      </div>
      {member ? <MemberDetail key={member.id} tag={tag} member={member} /> : null}
    </div>
  );
}

function MemberDetail({ tag, member }: { tag: AssetGroupTag; member: AssetGroupTagMember }) {
  const detail = useAsync(() => api.getAssetGroupTagMember(tag.id, member.id), [tag.id, member.id]);
  return (
    <aside class="detail" aria-label="Member detail">
      <header class="panel-head">
        <h3>{member.name}</h3>
        <button type="button" aria-label="Close member detail" onClick={() => setParams({ member: undefined })}>×</button>
      </header>
      <dl class="props">
        <dt>Kind</dt><dd>{member.primary_kind}</dd>
        <dt>Object id</dt><dd><code>{member.object_id}</code></dd>
        <dt>Environment</dt><dd>{member.environment_id || '—'}</dd>
        {Object.entries(member.properties).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => <><dt>{k}</dt><dd>{valueText(v)}</dd></>)}
      </dl>
      <h4>Selected by</h4>
      <ErrorText error={detail.error} />
      {detail.data ? (
        <ul aria-label="Selectors that selected it">
          {detail.data.selectors.map((sel) => <li><Link href={href('zones', { tag: tag.id, tab: 'selectors', selector: sel.id })}>{sel.name}</Link></li>)}
        </ul>
      ) : <Loading />}
      <p><Link href={href('explore', { type: typeOfKind(member.primary_kind), object: member.object_id })}>Open in Explore</Link></p>
    </aside>
  );
}
