/**
 * The signed-in session: a bearer token kept in sessionStorage (this tab only, never in a URL), the
 * typed client that sends it, and what happens when it stops working (expiry, sign-out, a 401).
 */
import { ScentApiError, ScentClient, type User } from 'scent/client';
import { Store } from './store.ts';

const KEY = 'scent.session';

export interface Session { token: string; expiresAt: number | null; user: User | null }
export type SignedOutReason = 'expired' | 'signed-out' | null;

export const session = new Store<{ current: Session | null; reason: SignedOutReason }>({ current: null, reason: null });

/** The one API client of the console: same origin, bearer session. */
export const api = new ScentClient({
  baseUrl: location.origin,
  fetch: async (input, init) => {
    const res = await fetch(input, init);
    // A 401 on any call means the session is gone (expired, revoked, user disabled).
    if (res.status === 401 && session.get().current) expire('expired');
    return res;
  },
});

/**
 * A multipart form POST (e.g. a SAML provider with its metadata file): the browser sets the boundary.
 * Errors as the client's (ScentApiError with the server's messages).
 */
export async function postForm<T = unknown>(path: string, form: FormData): Promise<T> {
  const token = session.get().current?.token;
  const res = await fetch(path, { method: 'POST', body: form, headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  if (res.status === 401 && session.get().current) expire('expired');
  const text = await res.text();
  let json: { data?: T; errors?: Array<{ message: string }> } | undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) throw new ScentApiError(res.status, (json?.errors ?? []).map((e) => e.message), res.headers.get('x-request-id') ?? undefined, json ?? text);
  return json?.data as T;
}

/** The `exp` claim of a JWT, in ms (display only; the server decides). */
function expiryOf(token: string): number | null {
  try {
    const payload = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : null;
  } catch {
    return null;
  }
}

let timer: ReturnType<typeof setTimeout> | undefined;

function adopt(token: string, user: User | null) {
  const expiresAt = expiryOf(token);
  api.credentials = { bearer: token };
  sessionStorage.setItem(KEY, token);
  session.set({ current: { token, expiresAt, user }, reason: null });
  clearTimeout(timer);
  if (expiresAt) timer = setTimeout(() => expire('expired'), Math.min(Math.max(expiresAt - Date.now(), 0), 2 ** 31 - 1));
}

export function expire(reason: SignedOutReason) {
  clearTimeout(timer);
  api.credentials = undefined;
  sessionStorage.removeItem(KEY);
  session.set({ current: null, reason });
}

export async function signIn(username: string, secret: string): Promise<void> {
  const result = await api.login(username, secret);
  adopt(result.session_token, null);
  await loadUser();
}

export async function signOut(): Promise<void> {
  try {
    await api.logout();
  } catch {
    // Signed out locally whatever the server says (it may already have ended the session).
  }
  expire('signed-out');
}

async function loadUser() {
  const user = await api.self();
  const current = session.get().current;
  if (current) session.set({ current: { ...current, user }, reason: null });
}

/**
 * At start: an SSO sign-in arrives as a `token` cookie (BloodHound's convention); it is moved into
 * this tab's storage and the cookie deleted. Otherwise the tab's stored session is resumed.
 */
export async function resume(): Promise<void> {
  const cookie = document.cookie.split(';').map((c) => c.trim()).find((c) => c.startsWith('token='));
  if (cookie) document.cookie = 'token=; Path=/; Max-Age=0; SameSite=Lax';
  const token = cookie ? decodeURIComponent(cookie.slice('token='.length)) : sessionStorage.getItem(KEY);
  if (!token) return;
  adopt(token, null);
  try {
    await loadUser();
  } catch (err) {
    if (!(err instanceof ScentApiError) || err.status !== 401) throw err;
  }
}

/** Whether the signed-in user holds a permission (`authority/name`). */
export function can(permission: string): boolean {
  const user = session.get().current?.user;
  return !!user?.roles.some((r) => r.permissions.some((p) => `${p.authority}/${p.name}` === permission));
}

/** An error as words for the person looking at the screen. */
export function describe(err: unknown): string {
  if (err instanceof ScentApiError) {
    if (err.status === 0) return err.messages[0] ?? 'the server could not be reached';
    return `${err.messages.join('; ') || 'request failed'} (HTTP ${err.status})`;
  }
  return err instanceof Error ? err.message : String(err);
}
