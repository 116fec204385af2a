/**
 * /_gateway/compare in a real browser: headless Chromium loads the page from a
 * comparing gateway and shows each method's counts and verdict, and the
 * fields that differ, from the live report.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { comparePage } from '../../src/compare/page.ts';
import { verdict } from '../../src/compare/verdict.ts';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/v1/index.ts';
import { Client, startGateway } from '../support/stack.ts';
import { doctorProxy, type DoctorProxy } from './doctor-proxy.ts';
import { methodOf, reportOf, settled } from './report-client.ts';
import type { Page } from 'playwright-core';

/** A report as a replay's page shows it, the page's script run. */
async function show(page: Page, report: unknown): Promise<void> {
  // A document of its own each time, as a file opened from disk is.
  await page.goto('about:blank');
  await page.setContent(comparePage(report as never));
  await page.waitForFunction("document.getElementById('decision').textContent !== 'Loading…'");
}

const CHROMIUM = process.env.V2GW_TEST_CHROMIUM ?? '/usr/bin/chromium';
const GET_GROUP = 'chainguard.platform.iam.v2beta1.GroupsService/GetGroup';
const LIST_GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService/ListGroups';
const CREATE_GROUP = 'chainguard.platform.iam.v2beta1.GroupsService/CreateGroup';
const SAMPLES_SECRET = 'page-samples-secret-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'v2gw-page-'));
const SCREENSHOT = process.env.V2GW_PAGE_SCREENSHOT ?? join(dir, 'compare-1280.png');
type Gateway = Awaited<ReturnType<typeof startGateway>>;
let emulator: RunningEmulator;
let candidate: Gateway;
let proxy: DoctorProxy;
let primary: Gateway;
let browser: Browser;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`).toBe(true);
  emulator = await startEmulator({ port: 0 });
  candidate = await startGateway(emulator.url, ['--log-level', 'silent']);
  proxy = await doctorProxy(candidate.url);
  proxy.doctor = (body) => {
    if (body.name === 'changed') delete body.description;
    return body;
  };
  writeFileSync(join(dir, 'samples-token'), SAMPLES_SECRET);
  primary = await startGateway(emulator.url, ['--log-level', 'silent', '--compare-with', proxy.url, '--compare-retry-ms', '0', '--compare-samples-token-file', join(dir, 'samples-token')]);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await primary?.gateway.close();
  await proxy?.close();
  await candidate?.gateway.close();
  await emulator?.close();
});

it('decides at a glance at 1280 px: the candidate, rates, counts by verdict, failing methods first, short names, an example pair per field', async () => {
  const org = emulator.state.createGroup(null, { name: 'page-org' }).id;
  const same = emulator.state.createGroup(org, { name: 'same', description: 'kept' }).id;
  const changed = emulator.state.createGroup(org, { name: 'changed', description: 'lost on the way' }).id;
  const client = new Client(primary.url);
  for (const uid of [same, changed]) expect((await client.get(`/iam/v2beta1/groups/${uid}`)).status).toBe(200);
  expect((await client.get('/iam/v2beta1/groups', { 'uidp.children_of': org })).status).toBe(200);
  await settled(primary.url, GET_GROUP, 2);
  await settled(primary.url, LIST_GROUPS, 1);
  // A write, after the list was compared (the candidate would otherwise list the new group too).
  expect((await client.post(`/iam/v2beta1/groups/${org}`, { name: 'written' })).status).toBe(200);
  for (let i = 0; i < 100 && !(await reportOf(primary.url)).methods.some((m: any) => m.method === CREATE_GROUP); i++) await new Promise((resolve) => setTimeout(resolve, 20));

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  // The live page a browser loads: it never bears the samples secret, so it shows no example pair.
  await page.goto(`${primary.url}/_gateway/compare`);
  await page.locator(`#methods tr[data-method="${GET_GROUP}"]`).waitFor();
  const live = await page.locator('#decision').textContent();
  expect(live).toContain(`Candidate ${proxy.url}`);
  expect(live).toContain('sample rate 100.00 %');
  expect(live).toContain('target mismatch rate 1.00 %');
  expect(live).toContain('0 pass · 1 fail · 1 undecided · 1 not compared');
  expect(live).toMatch(/^Not safe to switch yet\./);
  expect(await page.locator('table.fields td.v').allTextContents()).toEqual(['', '']);

  // The same report with its samples, as a replay writes it beside report.json.
  const report = await (await fetch(`${primary.url}/_gateway/compare/report`, { headers: { authorization: `Bearer ${SAMPLES_SECRET}` } })).json();
  await show(page, report);
  const rows = page.locator('#methods tbody tr');
  // Failing first, then undecided, then the write that was never compared.
  expect(await Promise.all([0, 1, 2].map((i) => rows.nth(i).getAttribute('data-method')))).toEqual([GET_GROUP, LIST_GROUPS, CREATE_GROUP]);
  expect(await rows.count()).toBe(3);
  const cells = await rows.nth(0).locator('td').allTextContents();
  // verdict, method, compared, rate, bound, needed, equal, expected, transient, access, dataLoss, value, cosmetic, skipped, errors, dropped, refused
  expect(cells.slice(0, 4)).toEqual(['fail', 'GetGroup', '2', '50.00 %']);
  expect(cells.slice(6, 11)).toEqual(['1', '0', '0', '0', '1']);
  expect(await rows.nth(0).locator('td').nth(1).getAttribute('title')).toBe(GET_GROUP);
  expect((await rows.nth(2).locator('td').allTextContents()).slice(0, 3)).toEqual(['not compared', 'CreateGroup', '0']);
  const field = await page.locator(`details[data-method="${GET_GROUP}"] table.fields tr`).nth(1).locator('td').allTextContents();
  expect(field).toEqual(['description', 'dataLoss', '1', '', 'lost on the way', '(absent)']);
  // Readable at 1280 px: nothing runs off to the right, the verdict and the rate are in view.
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
  for (const column of [0, 3, 5]) {
    const box = await rows.nth(0).locator('td').nth(column).boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(1280);
  }
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  expect(failures).toEqual([]);
  await page.close();
});

it('says "safe to switch" only when every compared method passes', async () => {
  const passing = { methods: [
    { method: 'a.S/GetA', compared: 400, equal: 400, expected: 0, transient: 0, skipped: 0, errors: 0, dropped: 0, refused: 0, different: { access: 0, dataLoss: 0, value: 0, cosmetic: 0 }, fields: [], samples: [], verdict: verdict(0, 400, 0.01) },
    { method: 'a.S/CreateA', compared: 0, equal: 0, expected: 0, transient: 0, skipped: 3, errors: 0, dropped: 0, refused: 0, different: { access: 0, dataLoss: 0, value: 0, cosmetic: 0 }, fields: [], samples: [], verdict: verdict(0, 0, 0.01) },
  ], candidate: 'http://b', sample: 1, targetRate: 0.01 };
  const page = await browser.newPage({ viewport: { width: 1280, height: 600 } });
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  await show(page, passing);
  expect(failures).toEqual([]);
  expect(await page.locator('#decision').textContent()).toMatch(/^Safe to switch\..*1 pass · 0 fail · 0 undecided · 1 not compared/);
  passing.methods[0]!.verdict = verdict(0, 20, 0.01);
  await show(page, passing);
  expect(await page.locator('#decision').textContent()).toMatch(/^Not safe to switch yet\..*0 pass · 0 fail · 1 undecided/);
  await page.close();
});

it('shows the comparisons a worker stop took, and is not "safe to switch" when they could hide mismatches', async () => {
  const method = (lost: { underWay: number; offered: number }) => ({
    method: 'a.S/GetA', compared: 400, equal: 400, expected: 0, transient: 0, skipped: 0, errors: lost.underWay, dropped: lost.offered, refused: 0,
    workerStop: { errors: lost.underWay, dropped: lost.offered }, different: { access: 0, dataLoss: 0, value: 0, cosmetic: 0 }, fields: [], samples: [], verdict: verdict(0, 400, 0.01, { candidate: 0, ...lost }),
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 600 } });
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  // 400 equal pass alone; with 3 lost under way (each perhaps a mismatch) they do not.
  await show(page, { methods: [method({ underWay: 3, offered: 2 })], candidate: 'http://b', sample: 1, targetRate: 0.01 });
  const line = await page.locator('#decision').textContent();
  expect(line).toMatch(/^Not safe to switch yet\..*0 pass · 0 fail · 1 undecided/);
  expect(line).toContain('5 comparison(s) lost to comparison worker stops');
  const last = page.locator('#methods tbody tr td').last();
  expect(await last.textContent()).toBe('5');
  expect(await last.getAttribute('title')).toBe('3 under way (in errors), 2 offered while it was down (in dropped)');
  expect(await page.locator('#methods thead th').last().textContent()).toBe('worker stop');
  // None lost: nothing said of stops.
  await show(page, { methods: [method({ underWay: 0, offered: 0 })], candidate: 'http://b', sample: 1, targetRate: 0.01 });
  expect(await page.locator('#decision').textContent()).toMatch(/^Safe to switch\.(?!.*worker)/);
  expect(failures).toEqual([]);
  await page.close();
});

it('is not "safe to switch" when the candidate never answers one method: that method is undecided, not "not compared"', async () => {
  // A candidate that resets every GetGroup's connection and answers the rest; a target rate four equal lists pass.
  const refusing = await doctorProxy(candidate.url);
  refusing.refuse = (call) => call.startsWith('GET /iam/v2beta1/groups/');
  const gateway = await startGateway(emulator.url, ['--log-level', 'silent', '--compare-with', refusing.url, '--compare-retry-ms', '0', '--compare-target-rate', '0.5']);
  const page = await browser.newPage({ viewport: { width: 1280, height: 600 } });
  try {
    const org = emulator.state.createGroup(null, { name: 'unanswered-org' }).id;
    const group = emulator.state.createGroup(org, { name: 'never-compared' }).id;
    const client = new Client(gateway.url);
    for (let i = 0; i < 4; i++) expect((await client.get('/iam/v2beta1/groups', { 'uidp.children_of': org })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await client.get(`/iam/v2beta1/groups/${group}`)).status).toBe(200);
    await settled(gateway.url, LIST_GROUPS, 4);
    const get = await settled(gateway.url, GET_GROUP, 3);
    expect(get).toMatchObject({ compared: 0, errors: 3, workerStop: { errors: 0, dropped: 0 }, verdict: { decision: 'undecided' } });
    expect(methodOf(await reportOf(gateway.url), LIST_GROUPS)).toMatchObject({ compared: 4, equal: 4, verdict: { decision: 'pass' } });

    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(`${gateway.url}/_gateway/compare`);
    await page.locator(`#methods tr[data-method="${GET_GROUP}"]`).waitFor();
    const line = await page.locator('#decision').textContent();
    expect(line).toMatch(/^Not safe to switch yet\./);
    expect(line).toContain('1 pass · 0 fail · 1 undecided · 0 not compared');
    expect(line).toContain('3 call(s) the candidate did not answer');
    const cells = await page.locator(`#methods tr[data-method="${GET_GROUP}"] td`).allTextContents();
    // verdict, method, compared, …, errors (15th)
    expect([cells[0], cells[1], cells[2], cells[14]]).toEqual(['undecided', 'GetGroup', '0', '3']);
    expect(failures).toEqual([]);
  } finally {
    await page.close();
    await gateway.gateway.close();
    await refusing.close();
  }
});
