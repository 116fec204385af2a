/**
 * The gateway's log destination (src/log.ts, bufferedDestination): a turn's lines leave at its end in
 * one write, and none is lost when the process exits, however it exits.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bufferedDestination, createLogger } from '../src/log.ts';

const dir = mkdtempSync(join(tmpdir(), 'v2gw-log-'));
const LOG_MODULE = fileURLToPath(new URL('../src/log.ts', import.meta.url));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const linesOf = (file: string): Array<Record<string, unknown>> =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Runs `body` in a fresh Node process with `createLogger` imported and `file` as its log destination's path. */
function inChild(file: string, body: string): void {
  const script = `import { bufferedDestination, createLogger } from ${JSON.stringify(LOG_MODULE)};\nconst log = createLogger('info', bufferedDestination(${JSON.stringify(file)}));\n${body}`;
  try {
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' });
  } catch {
    // A child that ends by a throw or a non-zero exit is the point of some cases; its file says what was kept.
  }
}

describe('the log destination', () => {
  it('writes a turn\'s lines at its end, not before', async () => {
    const file = join(dir, 'turn.log');
    const log = createLogger('info', bufferedDestination(file));
    log.info({ n: 1 }, 'one');
    log.info({ n: 2 }, 'two');
    expect(readFileSync(file, 'utf8')).toBe('');
    await new Promise((resolve) => setImmediate(resolve));
    expect(linesOf(file).map((line) => line.msg)).toEqual(['one', 'two']);
  });

  it('loses no line written just before the process exits, by exit or by an uncaught throw', () => {
    const exited = join(dir, 'exit.log');
    inChild(exited, `log.info('before exit'); process.exit(3);`);
    expect(linesOf(exited).map((line) => line.msg)).toEqual(['before exit']);

    const crashed = join(dir, 'crash.log');
    inChild(crashed, `log.info('before the throw'); throw new Error('boom');`);
    expect(linesOf(crashed).map((line) => line.msg)).toEqual(['before the throw']);
  });

  it('writes a fatal line at once, with those before it', () => {
    const file = join(dir, 'fatal.log');
    const log = createLogger('info', bufferedDestination(file));
    log.info('first');
    log.fatal('last words');
    expect(linesOf(file).map((line) => line.msg)).toEqual(['first', 'last words']);
  });
});
