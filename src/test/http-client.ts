/**
 * Client-shape harness: the app listening on a real port (0: any free one, loopback) and called with
 * **axios** as BloodHound's own JavaScript client calls it (`axios.create({ baseURL })`, Node's HTTP
 * adapter), so tests see what real clients see: axios's own headers (e.g. its body-less POST/PUT),
 * real HTTP framing, gzip, exact header values. Every answer is returned whatever its status (the
 * tests assert errors exactly); every JSON answer's Content-Type is checked to be exactly
 * `application/json`, as bhcli and the JS client compare it.
 *
 *   const c = await createClientApp();
 *   const { token } = await c.login('Administrator');
 *   const res = await c.http(token).post('/api/v2/logout');
 */
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import type { Config } from '../config.ts';
import type { Route } from '../http/route.ts';
import { assertJsonType, createTestApp, type TestApp } from './harness.ts';

export interface ClientApp extends TestApp {
  baseURL: string;
  /** An axios instance as `BHEAPIClient` builds one, with a bearer token when given. */
  http(token?: string): AxiosInstance;
}

export async function createClientApp(overrides: Partial<Config> = {}, extraRoutes: Route[] = []): Promise<ClientApp> {
  const t = await createTestApp(overrides, extraRoutes);
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    ...t,
    baseURL: address,
    http(token) {
      const instance = axios.create({
        baseURL: address,
        headers: token ? { Authorization: `Bearer ${token}` } : {},
        validateStatus: () => true,
        // Keep-alive off: every test's server closes cleanly without waiting on idle sockets.
        httpAgent: false,
      });
      instance.interceptors.response.use((res: AxiosResponse) => {
        assertJsonType({ headers: { 'content-type': res.headers['content-type'] } }, `${res.config.method} ${res.config.url}`);
        return res;
      });
      return instance;
    },
  };
}

/** The exact error envelope of an axios answer: status and messages (as errorOf does for inject). */
export function axiosErrorOf(res: AxiosResponse): { status: number; messages: string[] } {
  const body = res.data as { http_status?: number; request_id?: string; errors?: Array<{ context: string; message: string }> };
  if (!body || typeof body !== 'object' || !Array.isArray(body.errors)) throw new Error(`not an error envelope: ${JSON.stringify(body)}`);
  if (body.http_status !== res.status) throw new Error(`http_status ${body.http_status} != ${res.status}`);
  if (body.request_id !== res.headers['x-request-id']) throw new Error('request_id does not match X-Request-Id');
  return { status: res.status, messages: body.errors.map((e) => e.message) };
}
