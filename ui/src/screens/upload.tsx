/**
 * Upload collector output (JSON or zip): one upload job, each file sent with its progress in bytes,
 * then the job's ingest and analysis states as the server reports them, per-file results and errors,
 * and the history of upload jobs (paged).
 */
import { useRef, useState } from 'preact/hooks';
import type { FileUploadJob, FileUploadTask } from 'scent/client';
import { ErrorText, Section, Table, formatBytes, formatTime } from '../components/ui.tsx';
import { useAsync, useInterval, usePaged } from '../components/hooks.ts';
import { setParams, useRoute } from '../router.ts';
import { api, can, describe } from '../session.ts';
import { FINISHED, statusName } from '../status.ts';

interface Item { file: File; sent: number; state: 'queued' | 'sending' | 'sent' | 'rejected'; error?: string }

const contentType = (f: File) => (/\.zip$/i.test(f.name) || /zip/.test(f.type) ? 'application/zip' : 'application/json');

export function Upload() {
  const [items, setItems] = useState<Item[]>([]);
  const [job, setJob] = useState<FileUploadJob | null>(null);
  const [tasks, setTasks] = useState<FileUploadTask[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const history = usePaged(async (skip, limit) => {
    const page = await api.listFileUploads({ skip, limit, sort_by: '-id' });
    return { items: page.data, count: page.count };
  }, []);
  const busy = items.some((i) => i.state === 'queued' || i.state === 'sending') || (job !== null && !FINISHED.has(job.status));

  const poll = async () => {
    if (!job) return;
    try {
      const [page, done] = await Promise.all([api.listFileUploads({ id: job.id }), api.listFileUploadTasks(job.id)]);
      if (page.data[0]) setJob(page.data[0]);
      setTasks(done);
      if (page.data[0] && FINISHED.has(page.data[0].status)) history.reset();
    } catch (err) {
      setError(describe(err));
    }
  };
  useInterval(poll, 1000, job !== null && job.status !== 1 && !FINISHED.has(job.status));

  const start = async (files: File[]) => {
    if (!files.length || busy) return;
    setError(null);
    setTasks([]);
    const list: Item[] = files.map((file) => ({ file, sent: 0, state: 'queued' }));
    setItems(list);
    const update = (i: number, change: Partial<Item>) => setItems((cur) => cur.map((it, k) => (k === i ? { ...it, ...change } : it)));
    try {
      const started = await api.startFileUpload();
      setJob(started);
      for (const [i, { file }] of list.entries()) {
        update(i, { state: 'sending' });
        try {
          await api.uploadFile(started.id, file, { fileName: file.name, contentType: contentType(file), onProgress: (sent) => update(i, { sent }) });
          update(i, { state: 'sent', sent: file.size });
        } catch (err) {
          update(i, { state: 'rejected', error: describe(err) });
        }
      }
      setJob(await api.endFileUpload(started.id));
      history.reset();
    } catch (err) {
      setError(describe(err));
    }
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    start([...(e.dataTransfer?.files ?? [])]);
  };
  const taskOf = (name: string) => tasks.find((t) => t.file_name === name);

  return (
    <div class="screen">
      <h1>Upload</h1>
      {can('graphdb/Ingest') ? (
        <Section title="Upload collector data">
          <div class={dragging ? 'dropzone over' : 'dropzone'} onDragOver={(e) => (e.preventDefault(), setDragging(true))}
            onDragLeave={() => setDragging(false)} onDrop={onDrop}>
            <p>Drop SharpHound, AzureHound or OpenGraph files here (JSON, or zip archives of them)</p>
            <label class="button">
              Choose files
              <input ref={input} class="visually-hidden" type="file" multiple accept=".json,.zip,application/json,application/zip"
                disabled={busy} onChange={(e) => { start([...(e.currentTarget.files ?? [])]); e.currentTarget.value = ''; }} />
            </label>
          </div>
          <ErrorText error={error} />
          {job ? (
            <p role="status" class="job-status" data-status={statusName(job.status)}>
              Upload job {job.id}: <strong>{statusName(job.status)}</strong>{job.status_message ? ` — ${job.status_message}` : ''}
            </p>
          ) : null}
          {items.length ? (
            <ul class="files" aria-label="Files in this upload">
              {items.map((it) => {
                const task = taskOf(it.file.name);
                const state = it.state === 'rejected' ? 'rejected' : task ? statusName(task.status) : it.state === 'sent' && job ? statusName(job.status) : it.state;
                return (
                  <li class="file" data-state={state}>
                    <div class="file-head"><span class="name">{it.file.name}</span><span class="state">{state}</span></div>
                    <progress max={it.file.size || 1} value={it.sent} aria-label={`${it.file.name}: bytes sent`} />
                    <span class="muted">{formatBytes(it.sent)} of {formatBytes(it.file.size)} sent</span>
                    {task ? <span class="muted"> · {task.nodes} nodes, {task.edges} relationships</span> : null}
                    {it.error ? <p class="error">{it.error}</p> : null}
                    {task?.errors.map((e) => <p class="error">{e}</p>)}
                    {task?.warnings.map((w) => <p class="warning">{w}</p>)}
                  </li>
                );
              })}
            </ul>
          ) : null}
        </Section>
      ) : <p class="notice">Your role may not upload data.</p>}
      <History paged={history} />
    </div>
  );
}

function History({ paged }: { paged: ReturnType<typeof usePaged<FileUploadJob>> }) {
  const { params } = useRoute();
  const open = Number(params.get('job')) || undefined;
  return (
    <Section title="Upload history">
      <Table caption="Upload jobs, newest first" rows={paged.items} paged={paged} rowKey={(j) => j.id} selected={open}
        onRow={(j) => setParams({ job: open === j.id ? undefined : j.id })}
        columns={[
          { label: 'Job', cell: (j) => j.id, numeric: true },
          { label: 'Started', cell: (j) => formatTime(j.start_time) },
          { label: 'By', cell: (j) => j.user_email_address ?? j.user_id },
          { label: 'Status', cell: (j) => statusName(j.status) },
          { label: 'Files', cell: (j) => `${j.total_files}${j.failed_files ? ` (${j.failed_files} failed)` : ''}`, numeric: true },
          { label: 'Message', cell: (j) => j.status_message },
        ]} />
      {open ? <JobFiles jobId={open} /> : null}
    </Section>
  );
}

function JobFiles({ jobId }: { jobId: number }) {
  const tasks = useAsync(() => api.listFileUploadTasks(jobId), [jobId]);
  return (
    <div class="detail" aria-label={`Files of upload job ${jobId}`}>
      <h3>Files of job {jobId}</h3>
      <ErrorText error={tasks.error} />
      <Table caption={`Files of upload job ${jobId}`} rows={tasks.data ?? []} rowKey={(t) => t.id} empty="No file of this job has been ingested yet."
        columns={[
          { label: 'File', cell: (t) => t.file_name },
          { label: 'Size', cell: (t) => formatBytes(t.size), numeric: true },
          { label: 'Result', cell: (t) => statusName(t.status) },
          { label: 'Nodes', cell: (t) => t.nodes, numeric: true },
          { label: 'Relationships', cell: (t) => t.edges, numeric: true },
          { label: 'Errors and warnings', cell: (t) => [...t.errors, ...t.warnings].join('; ') || '—' },
        ]} />
    </div>
  );
}
