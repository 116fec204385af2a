/**
 * Span exports that fail are logged, over real ports: the gateway exports to a loopback port where
 * nothing listens, then a collector (a tiny HTTP server) comes up on that port. The log says once
 * why exports fail (never the export headers), and says when they work again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/cli-process.ts';
import { OtlpReceiver } from '../../support/otlp.ts';
import { startStack, type Stack } from '../../support/stack.ts';

const API_KEY = 'collector-api-key-5e3cr3t';

async function until(condition: () => boolean, poke: () => Promise<unknown>): Promise<void> {
  while (!condition()) {
    await poke();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('OTLP export failures', () => {
  let stack: Stack;
  let port: number;
  let receiver: OtlpReceiver | undefined;
  const lines = () => stack.logs.map((line) => JSON.parse(line) as Record<string, any>);
  const warnings = () => lines().filter((line) => /could not be exported/.test(line.msg));
  const recoveries = () => lines().filter((line) => /exported to the OTLP collector again/.test(line.msg));
  const request = () => stack.client.get('/iam/v2beta1/groups', { page_size: 1 });

  beforeAll(async () => {
    port = await freePort();
    stack = await startStack({
      gateway: {
        env: {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://trace-user:trace-pass@127.0.0.1:${port}/v1/traces`,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${API_KEY}`,
          OTEL_BSP_SCHEDULE_DELAY: '20',
          // The exporter retries a refused connection after a second or more, within this timeout: shorter, the first refusal is the result.
          OTEL_EXPORTER_OTLP_TIMEOUT: '500',
        },
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  it('an unreachable collector is logged as a warning with its cause, once for many failed exports', async () => {
    await until(() => warnings().length > 0, request);
    for (let i = 0; i < 3; i++) {
      await request();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(warnings()).toHaveLength(1);
    const [warning] = warnings();
    expect(warning!.level).toBe(40);
    expect(warning!.cause).toContain('ECONNREFUSED');
    expect(warning!.failedExports).toBeGreaterThanOrEqual(1);
  });

  it('says when exports work again, once the collector listens', async () => {
    receiver = await OtlpReceiver.start(port);
    await until(() => recoveries().length > 0 && receiver!.spans.length > 0, request);
    expect(recoveries()).toHaveLength(1);
    expect(typeof recoveries()[0]!.failedExports).toBe('number');
    expect(warnings()).toHaveLength(1);
  });

  it('never logs the export headers nor the endpoint\'s password', () => {
    const text = stack.logs.join('\n');
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain('trace-pass');
  });
});
