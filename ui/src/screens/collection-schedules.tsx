/** Scheduled collections: an rrule per client, with its next occurrences shown before saving. */
import { useMemo, useState } from 'preact/hooks';
import { rrulestr, RRule } from 'rrule';
import { ErrorText, Field, Loading, Section, Table, formatTime } from '../components/ui.tsx';
import { useAction, useAsync } from '../components/hooks.ts';
import { api, can } from '../session.ts';

const SWITCHES = {
  session_collection: 'Sessions', local_group_collection: 'Local groups', ad_structure_collection: 'AD structure',
  cert_services_collection: 'Certificate services', ca_registry_collection: 'CA registry', dc_registry_collection: 'DC registry',
  all_trusted_domains: 'All trusted domains',
} as const;
type Switch = keyof typeof SWITCHES;

const PRESETS: Record<string, string> = {
  'Every day at 02:00 UTC': 'RRULE:FREQ=DAILY;BYHOUR=2;BYMINUTE=0;BYSECOND=0',
  'Every 6 hours': 'RRULE:FREQ=HOURLY;INTERVAL=6',
  'Mondays at 03:00 UTC': 'RRULE:FREQ=WEEKLY;BYDAY=MO;BYHOUR=3;BYMINUTE=0;BYSECOND=0',
  'First day of the month': 'RRULE:FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=1;BYMINUTE=0;BYSECOND=0',
};

/** The next `n` occurrences of a rule (or why it does not parse), computed in the browser. */
export function nextOccurrences(text: string, n = 5, now = new Date()): { dates: Date[]; error: string | null } {
  const trimmed = text.trim();
  if (!trimmed) return { dates: [], error: null };
  try {
    const rule = rrulestr(trimmed, { forceset: false, dtstart: now });
    if (!(rule instanceof RRule)) return { dates: [], error: 'only one RRULE is supported' };
    const dates: Date[] = [];
    rule.between(now, new Date(now.getTime() + 5 * 366 * 86400_000), true, (d) => dates.push(d) < n);
    return { dates, error: null };
  } catch (err) {
    return { dates: [], error: (err as Error).message };
  }
}

export function Schedules() {
  const events = useAsync(() => api.listEvents(), []);
  const clients = useAsync(() => api.listClients({ limit: 200, sort_by: 'name' }), []);
  const { error, run } = useAction();
  const manage = can('clients/Manage');
  const clientName = (id: string) => clients.data?.data.find((c) => c.id === id)?.name ?? id;
  const remove = (id: number) => run(async () => {
    await api.deleteEvent(id);
    events.reload();
  }, 'Delete this schedule? Jobs it already made stay.');
  return (
    <>
      <Section title="Schedules">
        <ErrorText error={events.error ?? error} />
        {events.loading ? <Loading /> : null}
        <Table caption="Scheduled collections" rows={events.data ?? []} rowKey={(e) => e.id} empty="Nothing is scheduled."
          columns={[
            { label: 'Title', cell: (e) => e.title || `Schedule ${e.id}` },
            { label: 'Client', cell: (e) => clientName(e.client_id) },
            { label: 'Rule', cell: (e) => <code class="pre">{e.rrule}</code> },
            { label: 'Next', cell: (e) => nextOccurrences(e.rrule, 1).dates[0]?.toLocaleString() ?? '—' },
            { label: 'Collects', cell: (e) => (Object.keys(SWITCHES) as Switch[]).filter((k) => (e as unknown as Record<string, boolean>)[k]).map((k) => SWITCHES[k]).join(', ') || '—' },
            { label: 'Created', cell: (e) => formatTime(e.created_at) },
            ...(manage ? [{ label: 'Actions', cell: (e: { id: number }) => <button type="button" aria-label={`Delete schedule ${e.id}`} onClick={() => remove(e.id)}>Delete</button> }] : []),
          ]} />
      </Section>
      {manage ? <NewSchedule clients={clients.data?.data ?? []} onCreated={events.reload} /> : null}
    </>
  );
}

function NewSchedule({ clients, onCreated }: { clients: Array<{ id: string; name: string }>; onCreated: () => void }) {
  const [clientId, setClientId] = useState('');
  const [title, setTitle] = useState('');
  const [rule, setRule] = useState(Object.values(PRESETS)[0]);
  const [flags, setFlags] = useState<Record<Switch, boolean>>({ session_collection: true, local_group_collection: true, ad_structure_collection: true, cert_services_collection: true, ca_registry_collection: false, dc_registry_collection: false, all_trusted_domains: false });
  const { error, run } = useAction();
  const preview = useMemo(() => nextOccurrences(rule), [rule]);
  const chosen = clientId || clients[0]?.id || '';
  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => {
      await api.createEvent({ client_id: chosen, rrule: rule.trim(), title: title.trim() || undefined, ...flags });
      setTitle('');
      onCreated();
    });
  };
  return (
    <Section title="New schedule">
      <form class="form" onSubmit={submit} aria-label="New schedule">
        <Field label="Client">
          <select required value={chosen} onChange={(e) => setClientId(e.currentTarget.value)}>
            {clients.map((c) => <option value={c.id}>{c.name}</option>)}
          </select>
        </Field>
        <Field label="Title"><input value={title} onInput={(e) => setTitle(e.currentTarget.value)} /></Field>
        <Field label="Preset">
          <select onChange={(e) => setRule(e.currentTarget.value)} value={Object.values(PRESETS).includes(rule) ? rule : ''}>
            <option value="">Custom</option>
            {Object.entries(PRESETS).map(([l, r]) => <option value={r}>{l}</option>)}
          </select>
        </Field>
        <Field label="Recurrence rule (RFC 5545)" hint="An RRULE line, optionally after a DTSTART line; more often than hourly is refused">
          <textarea rows={2} required value={rule} onInput={(e) => setRule(e.currentTarget.value)} />
        </Field>
        <div class="preview" role="status" aria-live="polite" aria-label="Next occurrences">
          {preview.error ? <p class="error">This rule does not parse: {preview.error}</p> : (
            <>
              <span class="muted">Next occurrences (your time zone):</span>
              <ol>{preview.dates.map((d) => <li>{d.toLocaleString()}</li>)}</ol>
            </>
          )}
        </div>
        <fieldset>
          <legend>Collect</legend>
          {(Object.keys(SWITCHES) as Switch[]).map((k) => (
            <label class="check"><input type="checkbox" checked={flags[k]} onChange={(e) => setFlags({ ...flags, [k]: e.currentTarget.checked })} /> {SWITCHES[k]}</label>
          ))}
        </fieldset>
        <ErrorText error={error} />
        <button type="submit" class="primary" disabled={!clients.length || !!preview.error}>Save schedule</button>
        {!clients.length ? <p class="muted">Create a client first.</p> : null}
      </form>
    </Section>
  );
}
