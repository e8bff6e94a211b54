/** Collection (enterprise): clients, scheduled collections (rrule), jobs. */
import { useState } from 'preact/hooks';
import { ErrorText, Field, Section, Table, formatTime } from '../components/ui.tsx';
import { useAction, usePaged } from '../components/hooks.ts';
import { setParams, useRoute } from '../router.ts';
import { api, can } from '../session.ts';
import { Schedules } from './collection-schedules.tsx';
import { Jobs } from './collection-jobs.tsx';

const TABS = { clients: 'Clients', schedules: 'Schedules', jobs: 'Jobs' } as const;

export function Collection() {
  const { params } = useRoute();
  const tab = (params.get('tab') ?? 'clients') as keyof typeof TABS;
  return (
    <div class="screen">
      <h1>Collection</h1>
      <div role="tablist" aria-label="Collection views" class="tabs">
        {Object.entries(TABS).map(([id, label]) => (
          <button type="button" role="tab" aria-selected={tab === id} onClick={() => setParams({ tab: id === 'clients' ? undefined : id, job: undefined })}>{label}</button>
        ))}
      </div>
      {tab === 'schedules' ? <Schedules /> : tab === 'jobs' ? <Jobs /> : <Clients />}
    </div>
  );
}

function Clients() {
  const clients = usePaged(async (skip, limit) => {
    const page = await api.listClients({ skip, limit, sort_by: 'name' });
    return { items: page.data, count: page.count };
  }, []);
  const { error, run } = useAction();
  const manage = can('clients/Manage');
  const remove = (id: string, name: string) => run(async () => {
    await api.deleteClient(id);
    clients.reset();
  }, `Delete the client "${name}" with its schedules and jobs? Its token stops working.`);
  return (
    <>
      <Section title="Clients">
        <ErrorText error={error} />
        <Table caption="Collection clients" rows={clients.items} paged={clients} rowKey={(c) => c.id} empty="No collection clients yet."
          columns={[
            { label: 'Name', cell: (c) => c.name },
            { label: 'Type', cell: (c) => c.type },
            { label: 'Domain controller', cell: (c) => c.domain_controller || '—' },
            { label: 'Host', cell: (c) => [c.hostname, c.ip_address].filter(Boolean).join(' / ') || '—' },
            { label: 'Last check-in', cell: (c) => (c.last_checkin !== null ? formatTime(c.last_checkin) : 'never') },
            { label: 'Current job', cell: (c) => c.current_job_id ?? '—' },
            ...(manage ? [{ label: 'Actions', cell: (c: { id: string; name: string }) => <button type="button" aria-label={`Delete client ${c.name}`} onClick={() => remove(c.id, c.name)}>Delete</button> }] : []),
          ]} />
      </Section>
      {manage ? <NewClient onCreated={clients.reset} /> : null}
    </>
  );
}

function NewClient({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<'sharphound' | 'azurehound'>('sharphound');
  const [dc, setDc] = useState('');
  const { error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => {
      await api.createClient({ name: name.trim(), type, ...(dc.trim() ? { domain_controller: dc.trim() } : {}) });
      setName('');
      setDc('');
      onCreated();
    });
  };
  return (
    <Section title="New client">
      <form class="form" onSubmit={submit} aria-label="New collection client">
        <Field label="Name"><input required value={name} onInput={(e) => setName(e.currentTarget.value)} /></Field>
        <Field label="Type">
          <select value={type} onChange={(e) => setType(e.currentTarget.value as 'sharphound')}>
            <option value="sharphound">SharpHound</option>
            <option value="azurehound">AzureHound</option>
          </select>
        </Field>
        <Field label="Domain controller (optional)"><input value={dc} onInput={(e) => setDc(e.currentTarget.value)} /></Field>
        <ErrorText error={error} />
        <button type="submit" class="primary">Create client</button>
      </form>
    </Section>
  );
}
