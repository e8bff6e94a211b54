/**
 * History routing under /ui/: `/ui/<screen>?<params>`. Only screen state goes in the URL (ids,
 * filters), never a credential.
 */
import { Store, useStore } from './store.ts';

export interface Location { screen: string; params: URLSearchParams }

function read(): Location {
  const screen = location.pathname.replace(/^\/ui\/?/, '').split('/')[0] || 'home';
  return { screen, params: new URLSearchParams(location.search) };
}

export const route = new Store<Location>(read());
addEventListener('popstate', () => route.set(read()));

export function href(screen: string, params: Record<string, string | number | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return `/ui/${screen}${s ? `?${s}` : ''}`;
}

export function navigate(to: string, replace = false): void {
  if (`${location.pathname}${location.search}` === to) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  route.set(read());
}

/** Changes some query parameters of the current screen (replacing the history entry). */
export function setParams(changes: Record<string, string | number | undefined>, replace = true): void {
  const { screen, params } = route.get();
  const next: Record<string, string> = Object.fromEntries(params);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === '') delete next[k];
    else next[k] = String(v);
  }
  navigate(href(screen, next), replace);
}

export const useRoute = () => useStore(route);

/** Click handler for in-app links: plain clicks navigate without a page load. */
export function onLink(e: MouseEvent) {
  const a = (e.currentTarget as HTMLAnchorElement);
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.getAttribute('href')!);
}
