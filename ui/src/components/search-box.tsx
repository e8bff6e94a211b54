/**
 * Search with type-ahead (ARIA combobox): typing asks `GET /api/v2/search` (after a short pause, only
 * the latest answer counts); arrow keys move through the suggestions, Enter picks, Escape closes.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SearchHit } from 'scent/client';
import { api, describe } from '../session.ts';

let boxes = 0;

export function SearchBox({ label, onPick, initial = '', placeholder = 'Name or object id' }: {
  label: string; onPick: (hit: SearchHit) => void; initial?: string; placeholder?: string;
}) {
  const [text, setText] = useState(initial);
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [error, setError] = useState<string | null>(null);
  const id = useRef(`search-${++boxes}`).current;
  const latest = useRef(0);

  useEffect(() => {
    const q = text.trim();
    if (!q || !open) return setHits([]);
    const ticket = ++latest.current;
    const timer = setTimeout(() => {
      api.search(q, { limit: 10 }).then(
        (found) => ticket === latest.current && (setHits(found), setActive(found.length ? 0 : -1), setError(null)),
        (err) => ticket === latest.current && (setHits([]), setError(describe(err))),
      );
    }, 150);
    return () => clearTimeout(timer);
  }, [text, open]);

  const pick = (hit: SearchHit) => {
    setText(hit.name);
    setOpen(false);
    onPick(hit);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') (e.preventDefault(), setOpen(true), setActive((a) => Math.min(a + 1, hits.length - 1)));
    else if (e.key === 'ArrowUp') (e.preventDefault(), setActive((a) => Math.max(a - 1, 0)));
    else if (e.key === 'Enter' && open && hits[active]) (e.preventDefault(), pick(hits[active]));
    else if (e.key === 'Escape') setOpen(false);
  };
  const shown = open && text.trim() !== '';
  return (
    <div class="search">
      <label class="field" for={`${id}-input`}><span class="field-label">{label}</span></label>
      <input id={`${id}-input`} type="search" role="combobox" list={undefined} autoComplete="off" placeholder={placeholder} value={text}
        aria-expanded={shown && hits.length > 0} aria-controls={`${id}-list`} aria-autocomplete="list"
        aria-activedescendant={shown && active >= 0 ? `${id}-${active}` : undefined}
        onInput={(e) => (setText(e.currentTarget.value), setOpen(true))} onKeyDown={onKey}
        onFocus={() => setOpen(true)} onBlur={() => setTimeout(() => setOpen(false), 150)} />
      {shown && hits.length ? (
        <ul id={`${id}-list`} role="listbox" aria-label={`${label}: suggestions`} class="suggestions">
          {hits.map((h, i) => (
            <li id={`${id}-${i}`} role="option" aria-selected={i === active} class={i === active ? 'active' : undefined}
              onMouseDown={(e) => (e.preventDefault(), pick(h))}>
              <span class="name">{h.name}</span>
              <span class="muted"> {h.type}{h.system_tags.includes('admin_tier_0') ? ' · Tier Zero' : ''}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {error ? <p class="error" role="alert">{error}</p> : null}
    </div>
  );
}
