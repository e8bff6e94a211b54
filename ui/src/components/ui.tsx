/** Small building blocks: every control labelled, errors announced, values always rendered as text. */
import type { AnchorHTMLAttributes, ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { onLink } from '../router.ts';
import type { Paged } from './hooks.ts';

export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  return <a {...props} onClick={onLink} />;
}

export function ErrorText({ error }: { error: string | null | undefined }) {
  return error ? <p class="error" role="alert">{error}</p> : null;
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return <p class="muted" role="status">{what}…</p>;
}

/** A labelled control; a hint stays outside the label (it is not part of the control's name). */
export function Field({ label, children, hint }: { label: string; children: ComponentChildren; hint?: string }) {
  const field = (
    <label class="field">
      <span class="field-label">{label}</span>
      {children}
    </label>
  );
  return hint ? <div class="field-with-hint">{field}<span class="hint">{hint}</span></div> : field;
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="panel" aria-label={title}>
      <header class="panel-head"><h2>{title}</h2>{actions ? <div class="actions">{actions}</div> : null}</header>
      {children}
    </section>
  );
}

export interface Column<T> { label: string; cell: (row: T) => ComponentChildren; numeric?: boolean }

/** A table of rows; with `paged`, scrolling to its end loads the next page (infinite scroll). */
export function Table<T>({ rows, columns, caption, paged, rowKey, onRow, selected, empty = 'Nothing here yet.' }: {
  rows: T[]; columns: Column<T>[]; caption: string; paged?: Paged<T>; rowKey: (row: T) => string | number;
  onRow?: (row: T) => void; selected?: string | number; empty?: string;
}) {
  return (
    // A region that may scroll sideways: focusable so the keyboard can scroll it too.
    <div class="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead><tr>{columns.map((c) => <th scope="col" class={c.numeric ? 'num' : undefined}>{c.label}</th>)}</tr></thead>
        <tbody>
          {rows.map((row) => {
            const key = rowKey(row);
            return (
              <tr key={key} class={onRow ? (selected === key ? 'clickable selected' : 'clickable') : undefined}
                tabIndex={onRow ? 0 : undefined} aria-selected={onRow ? selected === key : undefined}
                onClick={onRow ? () => onRow(row) : undefined}
                onKeyDown={onRow ? (e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), onRow(row)) : undefined}>
                {columns.map((c) => <td class={c.numeric ? 'num' : undefined}>{c.cell(row)}</td>)}
              </tr>
            );
          })}
        </tbody>
      </table>
      {rows.length === 0 && !paged?.loading ? <p class="muted">{empty}</p> : null}
      {paged ? <Sentinel paged={paged} /> : null}
    </div>
  );
}

function Sentinel<T>({ paged }: { paged: Paged<T> }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || paged.done) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && paged.more(), { rootMargin: '200px' });
    io.observe(el);
    return () => io.disconnect();
  }, [paged.done, paged.more, paged.items.length]);
  return (
    <div ref={ref} class="sentinel">
      <ErrorText error={paged.error} />
      {paged.loading ? <Loading /> : null}
      {!paged.done && !paged.loading && !paged.error ? <button type="button" class="link" onClick={paged.more}>Load more</button> : null}
      {paged.count !== null ? <span class="muted">{paged.items.length} of {paged.count}</span> : null}
    </div>
  );
}

export function formatTime(rfc3339: string | undefined | null): string {
  if (!rfc3339 || rfc3339.startsWith('0001-01-01')) return '—';
  const d = new Date(rfc3339);
  return Number.isNaN(d.getTime()) ? rfc3339 : d.toLocaleString();
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A property value of collector data as plain text (objects as JSON). */
export function valueText(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
