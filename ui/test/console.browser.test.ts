/**
 * The console in a real browser (Debian's chromium through playwright-core) against a live server:
 * sign in, upload the SharpHound fixtures (plus a file whose object names carry markup) and watch
 * them to the end, data quality, a template's controllers as a graph, Tier Zero, collection, API
 * tokens, an OIDC provider created and deleted, session expiry and sign-out. Each screen gets a
 * screenshot (SCREENSHOTS) and an axe-core check with no serious or critical violation.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { FIXTURES } from '../../src/test/fixture-path.ts';
import { importQueryFile } from '../../src/modules/saved-queries/import.service.ts';
import { launch, requirements, screenshot, SCREENSHOTS, seriousViolations, startServer, type Server } from './browser.ts';

const missing = requirements();
if (missing) throw new Error(`browser tests cannot run: ${missing}`);

const TEMPLATE = 'DEBC8BEB-40AF-48B5-940F-AAFAFE961B26'; // ESC1@ESC1.LOCAL
const DOMAIN_SID = 'S-1-5-21-909015691-3030120388-2582151266';
const DOMAIN_ADMINS = `${DOMAIN_SID}-512`;
// The ingest upper-cases names (as BloodHound): the handler is entity-encoded so that it still sets
// window.__xss after that, were the markup ever run. EVIL_NAME is the name as stored and shown.
const EVIL_INPUT = '<img src=x onerror="&#119;&#105;&#110;&#100;&#111;&#119;.&#95;&#95;&#120;&#115;&#115;=1">EVIL<b>ADMINS</b>@ESC1.LOCAL';
const EVIL_NAME = EVIL_INPUT.toUpperCase();
const LIBRARY = join(FIXTURES, '..', 'bloodhound-query-library', 'Queries.json');
const MARKUP_NAME = '<img src=x onerror="window.__xss=1">Ana';
const JOB_LOG = 'Collected 12 users\n<script>window.__xss=1</script><img src=x onerror="window.__xss=1">\ndone';
const EVIL_SID = 'S-1-5-21-909015691-3030120388-2582151266-9999';
// A small AzureHound collection (a tenant, a user, a group with the user as member), uploaded with the fixtures.
const TENANT = '6C12B0B0-B2CC-4A73-8252-0B94BFCA2145';
const AZ_USER = 'AAAAAAAA-0000-4000-8000-000000000001';
const AZ_GROUP = 'BBBBBBBB-0000-4000-8000-000000000001';
const AZURE_FILE = { meta: { type: 'azure', version: 5, count: 4 }, data: [
  { kind: 'AZTenant', data: { tenantId: TENANT, displayName: 'Contoso' } },
  { kind: 'AZUser', data: { id: AZ_USER, displayName: 'Ann Cloud', userPrincipalName: 'ann@contoso.example', tenantId: TENANT } },
  { kind: 'AZGroup', data: { id: AZ_GROUP, displayName: 'Cloud Admins', tenantId: TENANT, securityEnabled: true } },
  { kind: 'AZGroupMember', data: { groupId: AZ_GROUP, members: [{ groupId: AZ_GROUP, member: { '@odata.type': '#microsoft.graph.user', id: AZ_USER } }] } },
] };

let server: Server;
let browser: Browser;
let page: Page;
const problems: string[] = [];
const shots: string[] = [];

before(async () => {
  server = await startServer();
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(15_000);
  await page.goto(`${server.base}/health`); // the browser's own first-start work (its network service) is not the console's
  page.on('console', (m) => /Content Security Policy|Refused to/i.test(m.text()) && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => !r.url().startsWith(server.base) && !r.url().startsWith('data:') && !r.url().startsWith('blob:') && problems.push(`off-origin request: ${r.url()}`));
});

after(async () => {
  await browser?.close();
  await server?.t.close();
  if (shots.length) console.log(`screenshots in ${SCREENSHOTS}:\n  ${shots.join('\n  ')}`);
});

/**
 * How far the page reaches past the window's right edge, and the outermost elements that do (to say
 * what to fix). A string: the test runner's transform would otherwise add helpers the page lacks.
 */
const OVERFLOW = `(() => {
  const width = document.documentElement.clientWidth;
  const past = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > width + 1);
  const outermost = past.filter((el) => !past.some((other) => other !== el && other.contains(el)));
  const culprits = outermost.slice(0, 5).map((el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ').join('.') : ''));
  return { wide: document.documentElement.scrollWidth - width, culprits };
})()`;

/** Nothing wider than the window (no sideways scrolling of the page) at this size. */
async function fits(width: number, height: number, name: string) {
  await page.setViewportSize({ width, height });
  // Two frames: what follows a resize on the next frame (ResizeObserver, sigma, uPlot) has followed it.
  await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
  const { wide, culprits } = await page.evaluate(OVERFLOW) as { wide: number; culprits: string[] };
  assert.ok(wide <= 0, `${name} at ${width}x${height}: the page is ${wide}px wider than the window (${culprits.join(', ')})`);
}

/** The canvas has drawn this many nodes (sigma's afterRender), or any number when none is given. */
async function drawn(nodes?: number) {
  await page.locator(nodes === undefined ? '.graph-canvas[data-drawn]' : `.graph-canvas[data-drawn="${nodes}"]`).first().waitFor();
}

async function check(name: string) {
  await fits(1920, 1080, name);
  await fits(1280, 800, name);
  shots.push(await screenshot(page, name));
  assert.deepEqual(await seriousViolations(page), [], `axe on ${name}`);
  assert.deepEqual(problems, [], 'no CSP violation, page error or off-origin request');
  assert.equal(await page.evaluate(() => (window as { __xss?: unknown }).__xss), undefined, 'no markup from collector data ran');
}

async function go(screen: string) {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: screen }).click();
  await page.getByRole('heading', { level: 1, name: screen }).waitFor();
}

test('sign in: / redirects to the console, a wrong password is refused in words, the right one signs in', async () => {
  await page.goto(`${server.base}/`);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  // Measured by the page's own clock from the start of navigation (the redirect included).
  console.log(`first screen interactive after ${Math.round(await page.evaluate(() => performance.now()))} ms`);
  assert.match(page.url(), /\/ui\/$/);
  await check('01-sign-in');
  // By keyboard only: the user name field, Tab to the password, Enter submits.
  await page.getByLabel('User name', { exact: true }).focus();
  await page.keyboard.type(server.username);
  await page.keyboard.press('Tab');
  await page.keyboard.type('wrong');
  await page.keyboard.press('Enter');
  await page.getByRole('alert').filter({ hasText: 'HTTP 401' }).waitFor();
  await page.getByLabel('Password', { exact: true }).fill(server.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Screens' }).waitFor();
  assert.ok(!page.url().includes('eyJ'), 'the token is never in the URL');
  await page.reload();
  await page.getByRole('navigation', { name: 'Screens' }).waitFor();
  console.log(`signed-in reload interactive after ${Math.round(await page.evaluate(() => performance.now()))} ms`);
  assert.equal(await page.evaluate(() => document.cookie.includes('token=')), false);
});

test('keyboard: the skip link, the screens by Tab and Enter, a tab by Space', async () => {
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
  // Tab through the navigation from its first link to Administration, then Enter opens it.
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').first().focus();
  for (let i = 0; i < 10 && (await page.evaluate(() => document.activeElement?.textContent)) !== 'Administration'; i++) await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Administration' }).waitFor();
  // A tab by Space.
  await page.getByRole('tab', { name: 'API tokens' }).focus();
  await page.keyboard.press('Space');
  await page.getByLabel('Token name').waitFor();
  assert.equal(await page.getByRole('tab', { name: 'API tokens' }).getAttribute('aria-selected'), 'true');
});

test('upload: the fixtures and a file with markup in its names, progress per file to the end', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scent-console-'));
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && f !== 'expected-controllers.json').map((f) => join(FIXTURES, f));
  const evil = join(dir, '<img src=x onerror=window.__xss=1>.json');
  const groups = JSON.parse(readFileSync(join(FIXTURES, 'groups.json'), 'utf8'));
  const template = groups.data.find((g: { ObjectIdentifier: string }) => g.ObjectIdentifier === DOMAIN_ADMINS);
  writeFileSync(evil, JSON.stringify({
    meta: { ...groups.meta, count: 1 },
    data: [{ ...template, ObjectIdentifier: EVIL_SID, Properties: { ...template.Properties, name: EVIL_INPUT, distinguishedname: 'CN=EVIL,DC=ESC1,DC=LOCAL' }, Members: [], Aces: [] }],
  }));
  const azure = join(dir, 'azurehound.json');
  writeFileSync(azure, JSON.stringify(AZURE_FILE));
  await go('Upload');
  await page.getByLabel('Choose files').setInputFiles([...files, evil, azure]);
  const status = page.locator('.job-status');
  await status.and(page.locator('[data-status="complete"], [data-status="partially complete"], [data-status="failed"]')).waitFor({ timeout: 60_000 });
  assert.equal(await status.getAttribute('data-status'), 'complete', await status.innerText());
  const items = page.getByRole('list', { name: 'Files in this upload' }).getByRole('listitem');
  assert.equal(await items.count(), files.length + 2);
  await page.locator('.file[data-state="complete"]').nth(files.length + 1).waitFor();
  for (const bar of await page.locator('.file progress').all()) assert.equal(await bar.getAttribute('value'), await bar.getAttribute('max'));
  await page.getByText('<img src=x onerror=window.__xss=1>.json', { exact: true }).first().waitFor();
  await page.getByRole('table', { name: 'Upload jobs, newest first' }).getByRole('row').nth(1).waitFor();
  await check('02-upload');
});

test('data quality: current AD counts and the charts', async () => {
  await go('Data quality');
  await page.locator('.counts').waitFor();
  const users = await page.locator('.counts div').filter({ hasText: /^Users/ }).locator('dd').innerText();
  assert.ok(Number(users.replace(/\D/g, '')) > 0, `users: ${users}`);
  await page.locator('.chart canvas').first().waitFor();
  await check('03-data-quality');
  // One domain: picked from available-domains where the server has that route, else typed as a SID.
  const picker = page.getByRole('combobox', { name: /^Domain/ });
  const sid = page.getByLabel('Domain SID (empty: whole platform)');
  await picker.or(sid).waitFor(); // whichever the server's routes give, once it has been asked
  if (server.t.app.routeTable.some((r) => r.method === 'GET' && r.url === '/api/v2/available-domains')) {
    await picker.locator('option', { hasText: 'ESC1.LOCAL' }).waitFor({ state: 'attached' });
    await picker.selectOption({ label: 'ESC1.LOCAL' });
  } else {
    await sid.fill(DOMAIN_SID);
    await page.keyboard.press('Enter');
  }
  await page.waitForURL(new RegExp(`scope=${DOMAIN_SID}`));
  await page.locator('.counts div').filter({ hasText: /^Users/ }).locator('dd').waitFor();
  const domainUsers = await page.locator('.counts div').filter({ hasText: /^Users/ }).locator('dd').innerText();
  assert.ok(Number(domainUsers.replace(/\D/g, '')) > 0, `domain users: ${domainUsers}`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await check('03b-data-quality-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  // Azure: the platform, then the tenant of the uploaded AzureHound collection (picked where the server lists tenants).
  await page.getByRole('combobox', { name: /^Platform/ }).selectOption({ label: 'Azure' });
  await page.waitForURL(/platform=azure/);
  const tenant = page.getByRole('combobox', { name: /^Tenant/ });
  const tenantId = page.getByLabel('Tenant id (empty: whole platform)');
  await tenant.or(tenantId).waitFor();
  if (server.t.app.routeTable.some((r) => r.method === 'GET' && r.url === '/api/v2/available-domains')) {
    await tenant.locator(`option[value="${TENANT}"]`, { hasText: /^CONTOSO/ }).waitFor({ state: 'attached' });
    await tenant.selectOption(TENANT);
  } else {
    await tenantId.fill(TENANT);
    await page.keyboard.press('Enter');
  }
  await page.waitForURL(new RegExp(`scope=${TENANT}`));
  const azUsers = page.locator('.counts div').filter({ hasText: /^Users/ }).locator('dd');
  await azUsers.waitFor();
  assert.equal(await azUsers.innerText(), '1');
  await check('03c-data-quality-azure-tenant');
});

test("explore: a template's controllers as a list and as a graph", async () => {
  await go('Explore');
  // Search with type-ahead, by keyboard: type, the suggestions appear, Enter opens the first.
  await page.getByRole('combobox', { name: 'Search' }).fill('esc1@');
  await page.getByRole('listbox', { name: 'Search: suggestions' }).getByRole('option', { name: /^ESC1@ESC1\.LOCAL CertTemplate/ }).waitFor();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'ESC1@ESC1.LOCAL' }).waitFor();
  assert.match(page.url(), new RegExp(`object=${TEMPLATE}`));
  await page.getByRole('link', { name: /Inbound object control/ }).click();
  const table = page.getByRole('table', { name: /Inbound object control of ESC1/ });
  await table.getByRole('row').nth(1).waitFor();
  await page.getByRole('button', { name: 'Graph' }).click();
  await page.locator('.graph-canvas canvas').first().waitFor();
  const options = page.getByLabel(/Nodes \(/).locator('option');
  await options.first().waitFor();
  assert.ok((await options.count()) > 1);
  const before = await options.count();
  await drawn(before);
  await page.getByLabel(/Nodes \(/).selectOption({ label: 'ESC1@ESC1.LOCAL (CertTemplate)' });
  await page.getByRole('heading', { level: 4, name: 'ESC1@ESC1.LOCAL' }).waitFor();
  await check('04-explore-controllers-graph');
  // Expand in place: Domain Admins' group memberships join the drawing (the list chosen beside the canvas);
  // nodes already drawn are not added twice.
  await page.getByLabel(/Nodes \(/).selectOption({ label: 'DOMAIN ADMINS@ESC1.LOCAL (Group)' });
  await page.getByLabel('Expand with').selectOption({ label: 'Group memberships' });
  await page.getByRole('button', { name: 'Expand', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Group memberships of DOMAIN ADMINS@ESC1.LOCAL: 2 nodes added.' }).waitFor();
  assert.equal(await options.count(), before + 2);
  await drawn(before + 2);
  // By keyboard: a node chosen in the list, Enter on the canvas expands it with the list the view shows.
  await page.getByLabel(/Nodes \(/).selectOption({ label: 'ADMINISTRATORS@ESC1.LOCAL (Group)' });
  await page.getByRole('application', { name: /Enter expands the selected node/ }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('status').filter({ hasText: /^Inbound object control of ADMINISTRATORS@ESC1\.LOCAL: / }).waitFor();
  await drawn(await options.count());
  await check('04a-explore-expanded-graph');
});

test('explore: the path finder from a user to Domain Admins', async () => {
  await page.getByRole('tab', { name: 'Path finder' }).click();
  await page.getByRole('combobox', { name: 'From' }).fill('researcher@');
  await page.getByRole('option', { name: /^RESEARCHER@ESC1\.LOCAL/ }).click();
  await page.getByRole('combobox', { name: 'To' }).fill('domain admins@');
  await page.getByRole('option', { name: /^DOMAIN ADMINS@ESC1\.LOCAL/ }).click();
  await page.getByRole('heading', { name: /^Shortest paths: [1-9]\d* nodes/ }).waitFor();
  const steps = page.getByRole('table', { name: 'Steps of the paths' });
  await steps.getByRole('row', { name: /RESEARCHER@ESC1\.LOCAL MemberOf DOMAIN ADMINS@ESC1\.LOCAL/ }).waitFor();
  await drawn();
  await check('04b-explore-path-finder');
});

test('explore: a Query Library query in the Cypher box, as a graph and as a table', async () => {
  const library = JSON.parse(readFileSync(LIBRARY, 'utf8')) as Array<{ name: string; query: string }>;
  // The Query Library goes in as public saved queries, as `scent queries import Queries.json --public` does.
  const outcome = await importQueryFile(server.t.db, LIBRARY, server.username, true);
  assert.ok(outcome.created > 150);
  await page.getByRole('tab', { name: 'Cypher' }).click();
  await page.getByLabel('Find a saved query').fill('Map OU');
  await page.getByRole('list', { name: 'Saved queries' }).getByRole('button', { name: 'Map OU structure', exact: true }).click();
  assert.equal(await page.getByLabel('Cypher', { exact: true }).inputValue(), library.find((q) => q.name === 'Map OU structure')!.query);
  await page.locator('.graph-canvas canvas').first().waitFor();
  await page.getByRole('heading', { name: /^Result: [1-9]\d* nodes, [1-9]\d* relationships/ }).waitFor();
  await drawn();
  await check('04c-explore-cypher-graph');
  await page.getByRole('button', { name: 'Table', exact: true }).click();
  await page.getByRole('table', { name: 'Relationships' }).getByRole('cell', { name: 'Contains', exact: true }).first().waitFor();
  await check('04d-explore-cypher-table');
  await page.getByRole('button', { name: 'Objects per kind' }).click();
  await page.getByRole('table', { name: 'Values' }).getByRole('row').nth(1).waitFor();
});

test('explore: an Azure user and its tenant, their related lists as a table and a graph', async () => {
  await page.getByRole('tab', { name: 'Search' }).click();
  await page.getByRole('combobox', { name: 'Search' }).fill('ann cloud');
  await page.getByRole('option', { name: /^ANN CLOUD AZUser/ }).click();
  const panel = page.getByRole('complementary', { name: 'Node panel' });
  await panel.getByRole('heading', { name: 'Ann Cloud' }).waitFor();
  assert.match(page.url(), new RegExp(`type=azure%2Fusers&object=${AZ_USER}`));
  await panel.getByRole('link', { name: 'Group memberships 1' }).click();
  await page.getByRole('table', { name: 'Group memberships of Ann Cloud' }).getByRole('cell', { name: 'Cloud Admins', exact: true }).waitFor();
  await check('04e-explore-azure-user');
  await page.getByRole('button', { name: 'Graph' }).click();
  await drawn(2);
  // The group's members, by expanding it on the canvas; then its tenant in the node panel.
  await page.getByLabel(/Nodes \(/).selectOption({ label: 'CLOUD ADMINS (AZGroup)' });
  await page.getByLabel('Expand with').selectOption({ label: 'Members' });
  await page.getByRole('button', { name: 'Expand', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Members of CLOUD ADMINS: nothing new.' }).waitFor();
  await page.goto(`${server.base}/ui/explore?type=azure%2Ftenants&object=${TENANT}`);
  await panel.getByRole('heading', { name: 'CONTOSO' }).waitFor();
  // A tenant lists the kinds of descendants it holds (each with its count) and its inbound control.
  assert.deepEqual((await panel.getByRole('list').first().getByRole('link').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ')), ['Users 1', 'Groups 1', 'Inbound object control 0']);
  await panel.getByRole('link', { name: 'Users 1' }).click();
  await page.getByRole('table', { name: 'Users of Contoso' }).getByRole('cell', { name: 'Ann Cloud', exact: true }).waitFor();
  await check('04f-explore-azure-tenant');
});

test('privilege zones: a Tier Zero selector, its members (markup shown as text), member detail', async () => {
  await go('Privilege Zones');
  await page.getByRole('link', { name: /Tier Zero/ }).click();
  // Tier Zero has members out of the box (BloodHound's default selectors): the new selector adds one.
  const tierZero = page.getByRole('navigation', { name: 'Tags' }).getByRole('link', { name: /Tier Zero/ });
  await tierZero.filter({ hasText: /Tier · \d/ }).waitFor();
  const before = Number(/· ([\d,]+)/.exec(await tierZero.innerText())![1].replace(/,/g, ''));
  assert.ok(before > 0, 'Tier Zero has members after the first upload');
  await page.getByRole('tab', { name: 'Selectors' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Console test admins');
  await page.getByLabel('Seed object ids').fill(`${DOMAIN_ADMINS}\n${EVIL_SID}`);
  await page.getByRole('button', { name: 'Create selector' }).click();
  await page.getByRole('cell', { name: 'Console test admins', exact: true }).click();
  await tierZero.filter({ hasText: `Tier · ${(before + 1).toLocaleString()}` }).waitFor(); // the markup-named group
  const detail = page.getByRole('complementary', { name: 'Selector detail' });
  await detail.getByRole('table', { name: 'Members selected by Console test admins' }).getByRole('cell', { name: EVIL_NAME, exact: true }).waitFor();
  await detail.getByRole('button', { name: 'Disable' }).click();
  await page.getByRole('row', { name: /Console test admins.*disabled/ }).waitFor();
  await detail.getByRole('button', { name: 'Enable' }).click();
  await page.getByRole('row', { name: /Console test admins.*enabled/ }).waitFor();
  await check('05-zones-selectors');
  await page.getByRole('tab', { name: 'Members' }).click();
  const evil = page.getByRole('cell', { name: EVIL_NAME, exact: true });
  await evil.waitFor();
  await evil.click();
  const member = page.getByRole('complementary', { name: 'Member detail' });
  await member.getByRole('heading', { name: EVIL_NAME }).waitFor();
  await member.getByRole('list', { name: 'Selectors that selected it' }).getByRole('link', { name: 'Console test admins' }).waitFor();
  await check('06-zones-members');
  await page.setViewportSize({ width: 1920, height: 1080 });
  await check('06b-zones-members-1920x1080');
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('collection: a client, a schedule with its next occurrences before saving, jobs', async () => {
  await go('Collection');
  await page.getByRole('form', { name: 'New collection client' }).getByLabel('Name').fill('DC01 collector');
  await page.getByRole('button', { name: 'Create client' }).click();
  await page.getByRole('cell', { name: 'DC01 collector', exact: true }).waitFor();
  await check('07-collection-clients');
  await page.getByRole('tab', { name: 'Schedules' }).click();
  await page.getByLabel('Recurrence rule (RFC 5545)').fill('RRULE:FREQ=DAILY;BYHOUR=4;BYMINUTE=30;BYSECOND=0');
  const preview = page.getByRole('status', { name: 'Next occurrences' }).getByRole('listitem');
  await preview.nth(4).waitFor();
  await page.getByLabel('Recurrence rule (RFC 5545)').fill('RRULE:FREQ=SOMETIMES');
  await page.getByText('This rule does not parse').waitFor();
  await page.getByLabel('Recurrence rule (RFC 5545)').fill('RRULE:FREQ=WEEKLY;BYDAY=MO;BYHOUR=3;BYMINUTE=0;BYSECOND=0');
  await page.getByLabel('Title').fill('Weekly full collection');
  await page.getByRole('button', { name: 'Save schedule' }).click();
  await page.getByRole('cell', { name: 'Weekly full collection', exact: true }).waitFor();
  await check('08-collection-schedules');
  // The client runs a job and ends it with a log (its text carries markup): as a collector would, over HTTP.
  const admin = (await server.t.login('Administrator')).token;
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, token: string, body?: unknown) => {
    const res = await server.t.request({ method, url, token, body });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json()?.data;
  };
  const [client] = await call('GET', '/api/v2/clients?name=eq:DC01%20collector', admin);
  const { token } = await call('PUT', `/api/v2/clients/${client.id}/token`, admin);
  const job = await call('POST', `/api/v2/clients/${client.id}/jobs`, admin, { session_collection: true });
  await call('POST', '/api/v2/jobs/start', token, { id: job.id });
  await call('POST', '/api/v2/jobs/end', token, { status: 2, message: 'collected', log: JOB_LOG,
    domain_results: [{ domain_name: 'ESC1.LOCAL', success: true, user_count: 12, computer_count: 3 }] });
  await page.getByRole('tab', { name: 'Jobs' }).click();
  await page.getByRole('table', { name: 'Collection jobs' }).waitFor();
  await page.getByLabel('Show').selectOption({ label: 'Finished' });
  await page.getByRole('table', { name: 'Collection jobs' }).getByRole('row', { name: new RegExp(`^${job.id} DC01 collector complete`) }).click();
  const detail = page.getByRole('complementary', { name: `Job ${job.id}` });
  await detail.getByRole('cell', { name: 'ESC1.LOCAL', exact: true }).waitFor();
  if (server.t.app.routeTable.some((r) => r.method === 'GET' && r.url === '/api/v2/jobs/:job_id/log')) {
    assert.equal(await detail.getByLabel(`Log of job ${job.id}`).innerText(), JOB_LOG);
  } else {
    await detail.getByRole('heading', { name: 'Results per domain' }).waitFor();
    assert.equal(await detail.getByRole('heading', { name: 'Log', exact: true }).count(), 0);
  }
  await check('09-collection-jobs');
});

test('administration: an API token shown once; an OIDC provider created and deleted', async () => {
  await go('Administration');
  await page.getByRole('tab', { name: 'API tokens' }).click();
  await page.getByLabel('Token name').fill('console test');
  await page.getByRole('button', { name: 'Create token' }).click();
  await page.getByText('This is the only time the key is shown').waitFor();
  await check('10-admin-token');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await page.getByRole('tab', { name: 'SSO providers' }).click();
  const oidc = page.getByRole('form', { name: 'New OIDC provider' });
  await oidc.getByLabel('Name').fill('Console IdP');
  await oidc.getByLabel('Issuer URL').fill('https://idp.example.test');
  await oidc.getByLabel('Client id').fill('scent-console');
  await oidc.getByRole('button', { name: 'Create provider' }).click();
  await page.getByRole('cell', { name: 'Console IdP', exact: true }).waitFor();
  await check('11-admin-sso');
  // The sign-in page of a tab with no session offers it, from the public provider list.
  const anonymous = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await anonymous.goto(`${server.base}/ui/`);
    const sso = anonymous.getByRole('navigation', { name: 'Single sign-on' }).getByRole('link', { name: 'Console IdP (oidc)' });
    await sso.waitFor();
    assert.equal(await sso.getAttribute('href'), '/api/v2/sso/console-idp/login');
    shots.push(await screenshot(anonymous, '01b-sign-in-sso'));
    assert.deepEqual(await seriousViolations(anonymous), [], 'axe on the sign-in page with an SSO provider');
  } finally {
    await anonymous.close();
  }
  page.once('dialog', (d) => d.accept());
  await page.getByRole('button', { name: 'Delete provider Console IdP' }).click();
  await page.getByText('No user signed in through it.').waitFor();
  await page.getByRole('cell', { name: 'Console IdP', exact: true }).waitFor({ state: 'detached' });
  // A SAML provider from an IdP metadata file, where the server has that route (else no SAML form).
  const samlForm = page.getByRole('form', { name: 'New SAML provider' });
  if (!server.t.app.routeTable.some((r) => r.method === 'POST' && r.url === '/api/v2/sso-providers/saml')) {
    await page.getByRole('form', { name: 'New OIDC provider' }).waitFor();
    assert.equal(await samlForm.count(), 0);
  } else {
    // The IdP metadata (an entity id, a POST SSO service, a signing certificate) from the SAML module's test IdP;
    // imported by a computed path: the module arrives with the route.
    const testIdp = '../../src/test/saml-idp.ts';
    const { SamlTestIdp } = await import(testIdp) as { SamlTestIdp: new (entityId: string) => { metadata(): string } };
    const metadata = new SamlTestIdp('https://idp.example.test/saml').metadata();
    await samlForm.getByLabel('SAML provider name').fill('Console SAML');
    await samlForm.getByLabel('IdP metadata (XML file)').setInputFiles({ name: 'idp-metadata.xml', mimeType: 'application/xml', buffer: Buffer.from(metadata) });
    await samlForm.getByRole('button', { name: 'Create SAML provider' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'Console SAML', exact: true }) });
    await row.getByRole('cell', { name: 'https://idp.example.test/saml', exact: true }).waitFor();
    await check('11a-admin-sso-saml');
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: 'Delete provider Console SAML' }).click();
    await page.getByRole('cell', { name: 'Console SAML', exact: true }).waitFor({ state: 'detached' });
  }
  // The audit log tab is there exactly when the server has the audit route.
  const audit = page.getByRole('tab', { name: 'Audit log' });
  if (!server.t.app.routeTable.some((r) => r.method === 'GET' && r.url === '/api/v2/audit')) {
    assert.equal(await audit.count(), 0);
    return;
  }
  await audit.click();
  await page.getByLabel('Action').fill('DeleteSSOIdentityProvider');
  await page.getByRole('button', { name: 'Filter' }).click();
  const rows = page.getByRole('table', { name: 'Audit entries, newest first' }).getByRole('row');
  await rows.filter({ hasText: 'DeleteSSOIdentityProvider' }).first().click();
  await page.getByRole('complementary', { name: 'Audit entry' }).getByText(server.username).first().waitFor();
  await check('11b-admin-audit');
});

test('administration: users and roles (where the server has the routes)', async () => {
  await go('Administration');
  const tab = page.getByRole('tab', { name: 'Users and roles' });
  if (!server.t.app.routeTable.some((r) => r.method === 'GET' && r.url === '/api/v2/bloodhound-users')) {
    await page.getByRole('tab', { name: 'API tokens' }).waitFor();
    assert.equal(await tab.count(), 0);
    return;
  }
  await tab.click();
  const users = page.getByRole('table', { name: 'Users' });
  await users.getByRole('cell', { name: server.username, exact: true }).waitFor();
  await page.getByRole('table', { name: 'Roles' }).getByRole('cell', { name: 'Read-Only', exact: true }).waitFor();
  // A new user whose first name carries markup (shown as text, never run).
  const form = page.getByRole('form', { name: 'New user' });
  await form.getByLabel('User name').fill('analyst1');
  await form.getByLabel('First name').fill(MARKUP_NAME);
  await form.getByLabel('Last name').fill('Lyst');
  await form.getByLabel('E-mail').fill('analyst1@console.test');
  await form.getByLabel('Role').selectOption({ label: 'Read-Only' });
  await form.getByLabel('Initial password').fill('Console-Pass-12!');
  await form.getByRole('button', { name: 'Create user' }).click();
  const detail = page.getByRole('complementary', { name: 'User detail' });
  await detail.getByRole('heading', { name: 'analyst1' }).waitFor();
  const row = users.getByRole('row').filter({ has: page.getByRole('cell', { name: 'analyst1', exact: true }) });
  await row.getByRole('cell', { name: `${MARKUP_NAME} Lyst`, exact: true }).waitFor();
  await row.getByRole('cell', { name: 'Read-Only', exact: true }).waitFor();
  // Disable and enable; a new role.
  await detail.getByRole('button', { name: 'Disable' }).click();
  await row.getByRole('cell', { name: 'disabled', exact: true }).waitFor();
  await detail.getByRole('button', { name: 'Enable' }).click();
  await row.getByRole('cell', { name: 'enabled', exact: true }).waitFor();
  await detail.getByLabel('Role').selectOption({ label: 'User' });
  await detail.getByRole('button', { name: 'Save' }).click();
  await row.getByRole('cell', { name: 'User', exact: true }).waitFor();
  // A password that breaks the rule is refused in the server's words.
  await detail.getByLabel('New password').fill('short');
  await detail.getByRole('button', { name: 'Set password' }).click();
  await detail.getByRole('alert').filter({ hasText: 'HTTP 400' }).waitFor();
  await check('10b-admin-users');
  page.once('dialog', (d) => d.accept());
  await detail.getByRole('button', { name: 'Delete user' }).click();
  await users.getByRole('cell', { name: 'analyst1', exact: true }).waitFor({ state: 'detached' });
});

test('administration: features and configuration (where the server has the routes)', async () => {
  await go('Administration');
  const tab = page.getByRole('tab', { name: 'Features and configuration' });
  if (!server.t.app.routeTable.some((r) => r.method === 'GET' && r.url === '/api/v2/features')) {
    await page.getByRole('tab', { name: 'API tokens' }).waitFor();
    assert.equal(await tab.count(), 0);
    return;
  }
  await tab.click();
  const flags = page.getByRole('table', { name: 'Feature flags' });
  const tiering = flags.getByRole('row').filter({ hasText: 'tier_management_engine' });
  await tiering.getByRole('cell', { name: 'on', exact: true }).waitFor();
  // A user-updatable flag turns off and on again (confirmed first); the others are fixed.
  page.once('dialog', (d) => d.accept());
  await tiering.getByRole('button', { name: /^Turn off/ }).click();
  await tiering.getByRole('cell', { name: 'off', exact: true }).waitFor();
  page.once('dialog', (d) => d.accept());
  await tiering.getByRole('button', { name: /^Turn on/ }).click();
  await tiering.getByRole('cell', { name: 'on', exact: true }).waitFor();
  // A parameter's value as JSON: not JSON is said before sending, the server's refusal in its words, then a good value.
  const params = page.getByRole('table', { name: 'Configuration parameters' });
  const expiry = params.getByRole('row').filter({ hasText: 'auth.password_expiration_window' });
  await expiry.getByRole('button', { name: /^Edit/ }).click();
  const value = expiry.getByLabel('Value of auth.password_expiration_window (JSON)');
  await value.fill('{"duration": ');
  await expiry.getByRole('button', { name: 'Save' }).click();
  await expiry.getByRole('alert').filter({ hasText: /^Not JSON/ }).waitFor();
  await value.fill('{"duration": "soon"}');
  await expiry.getByRole('button', { name: 'Save' }).click();
  await expiry.getByRole('alert').filter({ hasText: 'value.duration must be a positive ISO-8601 duration (e.g. P90D) (HTTP 400)' }).waitFor();
  await value.fill('{"duration": "P60D"}');
  await expiry.getByRole('button', { name: 'Save' }).click();
  await expiry.getByRole('cell', { name: '{"duration":"P60D"}', exact: true }).waitFor();
  await check('11c-admin-features-config');
});

test('session expiry and sign-out', async () => {
  // The session ends on the server (as when it expires or is revoked): the next call shows sign-in.
  await page.evaluate(async () => {
    const token = sessionStorage.getItem('scent.session');
    await fetch('/api/v2/logout', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  });
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Data quality' }).click();
  await page.getByText('Your session has ended').waitFor();
  await page.getByLabel('User name', { exact: true }).fill(server.username);
  await page.getByLabel('Password', { exact: true }).fill(server.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByText('You are signed out.').waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('scent.session')), null);
  await check('12-signed-out');
});

test('a session that reaches its expiry ends in the console on time, with no request needed', async () => {
  // The tab's clock is driven by the test (no waiting for a real expiry, nothing hangs on the machine's speed):
  // signed in, then moved to just past the token's exp; the console's own timer ends the session (the server's
  // clock is real, so no answer of the server could have ended it).
  const tab = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await tab.clock.install();
    await tab.goto(`${server.base}/ui/`);
    await tab.getByLabel('User name', { exact: true }).fill(server.username);
    await tab.getByLabel('Password', { exact: true }).fill(server.password);
    await tab.getByRole('button', { name: 'Sign in' }).click();
    await tab.getByRole('navigation', { name: 'Screens' }).waitFor();
    const left = await tab.evaluate(`JSON.parse(atob(sessionStorage.getItem('scent.session').split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))).exp * 1000 - Date.now()`) as number;
    assert.ok(left > 60_000, `the session has ${left} ms left`);
    await tab.getByRole('heading', { level: 1 }).first().waitFor();
    await tab.clock.fastForward(left - 60_000);
    assert.equal(await tab.getByText('Your session has ended').count(), 0, 'still signed in a minute before exp');
    await tab.clock.fastForward(61_000);
    await tab.getByText('Your session has ended').waitFor();
    assert.equal(await tab.evaluate(() => sessionStorage.getItem('scent.session')), null);
  } finally {
    await tab.close();
  }
});
