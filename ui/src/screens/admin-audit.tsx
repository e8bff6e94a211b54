/** The audit log: filters (action, actor, outcome, time window), newest first, infinite scroll, an entry's fields. */
import { useState } from 'preact/hooks';
import type { AuditLog } from 'scent/client';
import { Field, Section, Table, formatTime, valueText } from '../components/ui.tsx';
import { usePaged } from '../components/hooks.ts';
import { setParams, useRoute } from '../router.ts';
import { api } from '../session.ts';

const STATUSES = ['intent', 'success', 'failure'];
const WINDOWS: Record<string, number> = { 'last hour': 1 / 24, 'last day': 1, 'last 7 days': 7, 'last 30 days': 30, 'last year': 365 };

export function AuditLogs() {
  const { params } = useRoute();
  const action = params.get('action') ?? '';
  const actor = params.get('actor') ?? '';
  const status = params.get('status') ?? '';
  const window = WINDOWS[params.get('window') ?? ''] ? params.get('window')! : 'last 7 days';
  const [typed, setTyped] = useState({ action, actor });
  const logs = usePaged(async (skip, limit) => {
    const after = new Date(Date.now() - WINDOWS[window] * 86400_000).toISOString();
    const page = await api.listAuditLogs({
      skip, limit, after, sort_by: '-created_at', action: action || undefined, actor_name: actor || undefined, status: status || undefined,
    });
    return { items: page.data.logs, count: page.count };
  }, [action, actor, status, window], 100);
  const selected = Number(params.get('entry')) || undefined;
  const entry = logs.items.find((l) => l.id === selected);
  const apply = (e: Event) => (e.preventDefault(), setParams({ action: typed.action.trim(), actor: typed.actor.trim(), entry: undefined }));
  return (
    <div class="with-detail">
      <Section title="Audit log">
        <form class="toolbar" aria-label="Filter the audit log" onSubmit={apply}>
          <Field label="Action"><input value={typed.action} placeholder="e.g. CreateAuthToken" onInput={(e) => setTyped({ ...typed, action: e.currentTarget.value })} /></Field>
          <Field label="Actor name"><input value={typed.actor} onInput={(e) => setTyped({ ...typed, actor: e.currentTarget.value })} /></Field>
          <Field label="Outcome">
            <select value={status} onChange={(e) => setParams({ status: e.currentTarget.value, entry: undefined })}>
              <option value="">Any</option>
              {STATUSES.map((s) => <option value={s}>{s}</option>)}
            </select>
          </Field>
          <Field label="When">
            <select value={window} onChange={(e) => setParams({ window: e.currentTarget.value, entry: undefined })}>
              {Object.keys(WINDOWS).map((w) => <option value={w}>{w}</option>)}
            </select>
          </Field>
          <button type="submit">Filter</button>
        </form>
        <Table caption="Audit entries, newest first" rows={logs.items} paged={logs} rowKey={(l) => l.id} selected={selected}
          onRow={(l) => setParams({ entry: l.id })} empty="No audit entries match."
          columns={[
            { label: 'When', cell: (l) => formatTime(l.created_at) },
            { label: 'Action', cell: (l) => l.action },
            { label: 'Outcome', cell: (l) => l.status },
            { label: 'Actor', cell: (l) => l.actor_name || l.actor_email || l.actor_id || '—' },
            { label: 'From', cell: (l) => l.source_ip_address || '—' },
          ]} />
      </Section>
      {entry ? <Entry entry={entry} /> : null}
    </div>
  );
}

function Entry({ entry }: { entry: AuditLog }) {
  return (
    <aside class="detail" aria-label="Audit entry">
      <header class="panel-head"><h3>{entry.action}</h3><button type="button" aria-label="Close audit entry" onClick={() => setParams({ entry: undefined })}>×</button></header>
      <dl class="props">
        <dt>When</dt><dd>{formatTime(entry.created_at)}</dd>
        <dt>Outcome</dt><dd>{entry.status}</dd>
        <dt>Actor</dt><dd>{[entry.actor_name, entry.actor_email].filter(Boolean).join(' · ') || '—'}</dd>
        <dt>Actor id</dt><dd><code>{entry.actor_id || '—'}</code></dd>
        <dt>Request id</dt><dd><code>{entry.request_id}</code></dd>
        <dt>Commit id</dt><dd><code>{entry.commit_id}</code></dd>
        <dt>From</dt><dd>{entry.source_ip_address || '—'}</dd>
        {Object.entries(entry.fields ?? {}).map(([k, v]) => <><dt>{k}</dt><dd>{valueText(v)}</dd></>)}
      </dl>
    </aside>
  );
}
