/**
 * /_gateway/compare in a real browser: headless Chromium loads the page from a
 * comparing gateway and shows each method's counts and verdict, and the
 * fields that differ, from the live report.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/v1/index.ts';
import { Client, startGateway } from '../support/stack.ts';
import { doctorProxy, type DoctorProxy } from './doctor-proxy.ts';
import { settled } from './report-client.ts';

const CHROMIUM = process.env.V2GW_TEST_CHROMIUM ?? '/usr/bin/chromium';
const GET_GROUP = 'chainguard.platform.iam.v2beta1.GroupsService/GetGroup';
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
  primary = await startGateway(emulator.url, ['--log-level', 'silent', '--compare-with', proxy.url]);
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

it('shows each method\'s counts, verdict and differing fields', async () => {
  const org = emulator.state.createGroup(null, { name: 'page-org' }).id;
  const same = emulator.state.createGroup(org, { name: 'same', description: 'kept' }).id;
  const changed = emulator.state.createGroup(org, { name: 'changed', description: 'lost on the way' }).id;
  const client = new Client(primary.url);
  for (const uid of [same, changed]) expect((await client.get(`/iam/v2beta1/groups/${uid}`)).status).toBe(200);
  await settled(primary.url, GET_GROUP, 2);

  const page = await browser.newPage();
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  await page.goto(`${primary.url}/_gateway/compare`);
  const row = page.locator(`#methods tr[data-method="${GET_GROUP}"]`);
  await row.waitFor();
  const cells = await row.locator('td').allTextContents();
  // method, compared, equal, transient, access, dataLoss, value, cosmetic, skipped, errors, dropped, rate, bound, needed, verdict
  expect(cells.slice(0, 11)).toEqual([GET_GROUP, '2', '1', '0', '0', '1', '0', '0', '0', '0', '0']);
  expect(cells[11]).toBe('50.00 %');
  expect(cells[14]).toBe('fail');
  const fields = await page.locator('table.fields tr').nth(1).locator('td').allTextContents();
  expect(fields.slice(0, 3)).toEqual(['description', 'dataLoss', '1']);
  expect(failures).toEqual([]);
  await page.close();
});
