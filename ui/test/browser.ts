/**
 * Browser-test helpers: Debian's chromium driven by playwright-core (no browser download), the
 * server in-process on a fresh SQLite database, an axe-core check, screenshots into a named folder.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../../src/test/harness.ts';
import { createUser } from '../../src/modules/users/users.service.ts';
import { CONSOLE_DIR } from '../../src/modules/console/console.routes.ts';

export const CHROMIUM = process.env.SCENT_CHROMIUM ?? '/usr/bin/chromium';
/** Screenshots of every screen go here (not committed: scratch/ is ignored). */
export const SCREENSHOTS = process.env.SCENT_SCREENSHOTS ?? join(process.cwd(), 'scratch', 'console-screenshots');

/** Flags for a headless chromium on a machine with no network but loopback. */
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-default-apps', '--disable-extensions', '--mute-audio'];

export function requirements(): string | null {
  if (!existsSync(CHROMIUM)) return `chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium" (Debian), or set SCENT_CHROMIUM to a Chromium binary`;
  if (!existsSync(join(CONSOLE_DIR, 'build.json'))) return 'the console is not built (ui/dist is missing): run "npm run build:ui"';
  return null;
}

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

export interface Server { t: TestApp; base: string; username: string; password: string }

export async function startServer(overrides: Parameters<typeof createTestApp>[0] = {}): Promise<Server> {
  const t = await createTestApp({ ingestInterval: 1, ...overrides });
  const username = 'console-admin';
  const password = 'console-test-password-1';
  await createUser(t.db, { principalName: username, email: 'admin@console.test', roleName: 'Administrator', password });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, base: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`, username, password };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core on the page as it is: the serious and critical violations, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.help} (${v.targets.join('; ')})`);
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
