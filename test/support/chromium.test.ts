/** Where Chromium is missing or broken, the browser tests fail with one message naming the command that installs it. */
import { describe, expect, it } from 'vitest';
import { INSTALL_CHROMIUM, launchChromium } from './chromium.ts';

async function refusal(path: string): Promise<Error> {
  const error = await launchChromium(path).then(() => undefined, (e: unknown) => e as Error);
  if (!error) throw new Error(`${path} launched`);
  return error;
}

describe('launchChromium', () => {
  it('names the install command when Chromium is missing, in one line and no stack', async () => {
    const error = await refusal('/nonexistent/chromium');
    expect(INSTALL_CHROMIUM).toBe('apt-get update && apt-get install -y chromium');
    expect(error.message).toContain(INSTALL_CHROMIUM);
    expect(error.message).toContain('/nonexistent/chromium');
    expect(error.message).not.toContain('\n');
    expect(error.stack).toBe(`Error: ${error.message}`);
  });

  it('says so in one line, not playwright\'s launch log, when what is there does not start', async () => {
    const error = await refusal('/bin/false');
    expect(error.message).toContain(INSTALL_CHROMIUM);
    expect(error.message).toContain('did not start');
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain('--headless');
  });
});
