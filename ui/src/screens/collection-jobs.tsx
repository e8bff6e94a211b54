/**
 * Collection jobs: all, available (ready), running and finished ones (newest end first, from
 * `GET /api/v2/jobs/finished` where the server has it), with their results per domain and, for a
 * finished job, the log its client sent.
 */
import { ScentApiError, type ClientJob, type Page } from 'scent/client';
import { ErrorText, Field, Loading, Section, Table, formatTime } from '../components/ui.tsx';
import { useAction, useAsync, usePaged } from '../components/hooks.ts';
import { setParams, useRoute } from '../router.ts';
import { api, can } from '../session.ts';
import { FINISHED, statusName } from '../status.ts';

const FINISHED_STATUS = ['complete', 'partiallycomplete', 'failed', 'canceled', 'timedout'];

/** Finished jobs, newest end first; a server without the finished route gets GET /jobs filtered by status. */
async function finishedJobs(skip: number, limit: number): Promise<Page<ClientJob[]>> {
  try {
    return await api.request<Page<ClientJob[]>>('GET', '/api/v2/jobs/finished', { query: { skip, limit } });
  } catch (err) {
    if (!(err instanceof ScentApiError && (err.status === 404 || err.status === 400))) throw err;
    return api.listJobs({ skip, limit, sort_by: '-end_time', status: FINISHED_STATUS });
  }
}

const VIEWS: Record<string, { label: string; status?: string[] }> = {
  all: { label: 'All jobs' },
  available: { label: 'Available (ready)', status: ['ready'] },
  running: { label: 'Running', status: ['running'] },
  finished: { label: 'Finished', status: FINISHED_STATUS },
};

export function Jobs() {
  const { params } = useRoute();
  const view = VIEWS[params.get('view') ?? ''] ? params.get('view')! : 'all';
  const jobs = usePaged(async (skip, limit) => {
    const page = view === 'finished' ? await finishedJobs(skip, limit) : await api.listJobs({ skip, limit, sort_by: '-id', status: VIEWS[view].status });
    return { items: page.data, count: page.count };
  }, [view]);
  const selected = Number(params.get('job')) || undefined;
  const job = jobs.items.find((j) => j.id === selected);
  return (
    <div class="with-detail">
      <Section title="Jobs">
        <form class="toolbar" aria-label="Which jobs" onSubmit={(e) => e.preventDefault()}>
          <Field label="Show">
            <select value={view} onChange={(e) => setParams({ view: e.currentTarget.value, job: undefined })}>
              {Object.entries(VIEWS).map(([v, { label }]) => <option value={v}>{label}</option>)}
            </select>
          </Field>
        </form>
        <Table caption="Collection jobs" rows={jobs.items} paged={jobs} rowKey={(j) => j.id} selected={selected}
          onRow={(j) => setParams({ job: j.id })} empty="No jobs."
          columns={[
            { label: 'Job', cell: (j) => j.id, numeric: true },
            { label: 'Client', cell: (j) => j.client_name },
            { label: 'Status', cell: (j) => statusName(j.status) },
            { label: 'Due', cell: (j) => formatTime(j.execution_time) },
            { label: 'Started', cell: (j) => formatTime(j.start_time) },
            { label: 'Ended', cell: (j) => formatTime(j.end_time) },
          ]} />
      </Section>
      {job ? <JobDetail job={job} onChanged={jobs.reset} /> : null}
    </div>
  );
}

function JobDetail({ job, onChanged }: { job: ClientJob; onChanged: () => void }) {
  const { error, run } = useAction();
  const cancel = () => run(async () => {
    await api.cancelJob(job.id);
    onChanged();
  });
  return (
    <aside class="detail" aria-label={`Job ${job.id}`}>
      <header class="panel-head"><h3>Job {job.id}</h3><button type="button" aria-label="Close job detail" onClick={() => setParams({ job: undefined })}>×</button></header>
      <dl class="props">
        <dt>Client</dt><dd>{job.client_name}</dd>
        <dt>Status</dt><dd>{statusName(job.status)}</dd>
        <dt>Message</dt><dd>{job.status_message || '—'}</dd>
        <dt>Domain controller</dt><dd>{job.domain_controller || '—'}</dd>
        <dt>Scheduled by</dt><dd>{job.event_id.valid ? `schedule ${job.event_id.int32}` : 'one-off'}</dd>
      </dl>
      <h4>Results per domain</h4>
      <Table caption={`Domain results of job ${job.id}`} rows={job.domain_results ?? []} rowKey={(d) => d.id} empty="No domain results reported."
        columns={[
          { label: 'Domain', cell: (d) => d.domain_name },
          { label: 'Result', cell: (d) => (d.success ? 'succeeded' : 'failed') },
          { label: 'Message', cell: (d) => d.message || '—' },
          { label: 'Users', cell: (d) => d.user_count, numeric: true },
          { label: 'Computers', cell: (d) => d.computer_count, numeric: true },
        ]} />
      {FINISHED.has(job.status) ? <JobLog id={job.id} /> : null}
      <ErrorText error={error} />
      {can('collection/ManageJobs') && (job.status === 0 || job.status === 1) ? <button type="button" onClick={cancel}>Cancel job</button> : null}
    </aside>
  );
}

/** The log the client sent when it ended the job (`GET /api/v2/jobs/{id}/log`), shown as text. */
function JobLog({ id }: { id: number }) {
  const log = useAsync(async () => {
    try {
      return (await api.request<{ data: { log: string } }>('GET', `/api/v2/jobs/${id}/log`)).data.log;
    } catch (err) {
      if (err instanceof ScentApiError && err.status === 404) return null; // a server without job logs
      throw err;
    }
  }, [id]);
  if (log.loading) return <Loading what="Loading the log" />;
  if (log.data === null) return null;
  return (
    <>
      <h4>Log</h4>
      <ErrorText error={log.error} />
      {log.data ? <pre class="log" tabIndex={0} aria-label={`Log of job ${id}`}>{log.data}</pre> : <p class="muted">The client sent no log.</p>}
    </>
  );
}
