/**
 * The --docs page in a real browser: headless Chromium (Debian's `chromium`,
 * driven by playwright-core) loads /docs from a gateway, and the API renders —
 * operations from /openapi.json, every asset from the gateway itself (no
 * request leaves loopback). Without --docs there is no page. Fails, never
 * skips, when Chromium is missing, naming the command that installs it
 * (support/chromium.ts; .ci/run installs it).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { startStack, type Stack } from '../support/stack.ts';

describe('the docs page', () => {
  let stack: Stack;
  let plain: Stack;
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
    stack = await startStack({ flags: ['--docs'] });
    plain = await startStack();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await plain?.close();
  });

  it('renders the API\'s operations from the gateway alone', async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(new URL('/docs', stack.url).href);
    await page.getByText('/iam/v2beta1/groups:lookupGroup').first().waitFor({ timeout: 20_000 });
    expect(await page.getByText('GroupsService').count()).toBeGreaterThan(0);
    expect(await page.getByText('/registry/v2beta1/repos/{uid}/readme').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(tmpdir(), 'v2gw-docs.png') });
    const origin = new URL(stack.url).origin;
    expect(requested.filter((url) => !url.startsWith(origin) && !url.startsWith('data:'))).toEqual([]);
    expect(requested).toContain(`${origin}/openapi.json`);
    await page.close();
  }, 60_000);

  it('is not served without --docs, while /openapi.json is', async () => {
    expect((await fetch(new URL('/docs', plain.url))).status).toBe(404);
    expect((await fetch(new URL('/openapi.json', plain.url))).status).toBe(200);
  });
});
