/**
 * Features and configuration: the feature flags (a user-updatable one toggles) and the configuration
 * parameters, each value edited as JSON (the server validates it and says why it refuses).
 */
import { useState } from 'preact/hooks';
import { ErrorText, Field, Loading, Section, Table, formatTime } from '../components/ui.tsx';
import { useAction, useAsync } from '../components/hooks.ts';
import { api, can } from '../session.ts';

export interface Feature { id: number; key: string; name: string; description: string; enabled: boolean; user_updatable: boolean; updated_at: string }
export interface Parameter { id: number; key: string; name: string; description: string; value: Record<string, unknown>; updated_at: string }

export const listFeatures = async () => (await api.request<{ data: Feature[] }>('GET', '/api/v2/features')).data;
const listParameters = async () => (await api.request<{ data: Parameter[] }>('GET', '/api/v2/config')).data;

export function FeaturesAndConfig() {
  const features = useAsync(listFeatures, []);
  const parameters = useAsync(listParameters, []);
  const write = can('app/WriteAppConfig');
  const { error, busy, run } = useAction();
  const toggle = (f: Feature) => run(async () => {
    await api.request('PUT', `/api/v2/features/${f.id}/toggle`);
    features.reload();
  }, `${f.enabled ? 'Turn off' : 'Turn on'} "${f.name}"?`);
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <>
      <Section title="Features">
        <ErrorText error={features.error ?? error} />
        {features.loading ? <Loading /> : null}
        <Table caption="Feature flags" rows={features.data ?? []} rowKey={(f) => f.id}
          columns={[
            { label: 'Feature', cell: (f) => <><strong>{f.name}</strong><br /><code class="muted">{f.key}</code></> },
            { label: 'Description', cell: (f) => f.description || '—' },
            { label: 'State', cell: (f) => (f.enabled ? 'on' : 'off') },
            { label: 'Change', cell: (f) => (f.user_updatable && write
              ? <button type="button" disabled={busy} aria-label={`${f.enabled ? 'Turn off' : 'Turn on'} ${f.name}`} onClick={() => toggle(f)}>{f.enabled ? 'Turn off' : 'Turn on'}</button>
              : <span class="muted">fixed</span>) },
          ]} />
      </Section>
      <Section title="Configuration">
        <ErrorText error={parameters.error} />
        {parameters.loading ? <Loading /> : null}
        <Table caption="Configuration parameters" rows={parameters.data ?? []} rowKey={(p) => p.key}
          columns={[
            { label: 'Parameter', cell: (p) => <><strong>{p.name}</strong><br /><code class="muted">{p.key}</code></> },
            { label: 'Description', cell: (p) => p.description || '—' },
            { label: 'Value', cell: (p) => (editing === p.key
              ? <EditValue parameter={p} onDone={(changed) => (setEditing(null), changed && parameters.reload())} />
              : <code>{JSON.stringify(p.value)}</code>) },
            { label: 'Updated', cell: (p) => formatTime(p.updated_at) },
            ...(write ? [{ label: 'Change', cell: (p: Parameter) => (editing === p.key ? null
              : <button type="button" aria-label={`Edit ${p.name}`} onClick={() => setEditing(p.key)}>Edit</button>) }] : []),
          ]} />
      </Section>
    </>
  );
}

function EditValue({ parameter, onDone }: { parameter: Parameter; onDone: (changed: boolean) => void }) {
  const [value, setValue] = useState(JSON.stringify(parameter.value, null, 2));
  const [invalid, setInvalid] = useState<string | null>(null);
  const { error, busy, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (err) {
      return setInvalid(`Not JSON: ${(err as Error).message}`);
    }
    setInvalid(null);
    run(async () => {
      await api.request('PUT', '/api/v2/config', { body: { key: parameter.key, value: parsed } });
      onDone(true);
    });
  };
  return (
    <form class="form" aria-label={`New value of ${parameter.name}`} onSubmit={submit}>
      <Field label={`Value of ${parameter.key} (JSON)`}>
        <textarea rows={4} spellcheck={false} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
      </Field>
      <ErrorText error={invalid ?? error} />
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>Save</button>
        <button type="button" onClick={() => onDone(false)}>Cancel</button>
      </div>
    </form>
  );
}
