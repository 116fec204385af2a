/**
 * Debian's Chromium for the browser tests, driven by playwright-core (which
 * downloads no browser of its own). Where it is missing or cannot start, the
 * test fails with one message naming the command that installs it, instead
 * of playwright's launch log: the tests fail, they never skip.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.V2GW_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const INSTALL_CHROMIUM = 'apt-get update && apt-get install -y chromium';

/** Launches the browser headless; each launch has a fresh, temporary profile of its own. */
export async function launchChromium(executablePath = CHROMIUM): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw plainly(`The browser tests need Debian's Chromium, and ${executablePath} is missing. Install it with: ${INSTALL_CHROMIUM} (or set V2GW_TEST_CHROMIUM to a Chromium).`);
  }
  try {
    return await chromium.launch({
      executablePath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
  } catch (error) {
    const cause = String((error as Error)?.message ?? error).split('\n')[0];
    throw plainly(`The browser tests need Debian's Chromium, and ${executablePath} did not start (${cause}). Install or repair it with: ${INSTALL_CHROMIUM}`);
  }
}

/** An error that is its message alone: no stack of frames under it. */
function plainly(message: string): Error {
  const error = new Error(message);
  error.stack = `Error: ${message}`;
  return error;
}
