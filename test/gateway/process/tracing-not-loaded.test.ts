/**
 * With tracing off, the OpenTelemetry SDK is never loaded: a sidecar pays no
 * memory for it. A real process builds the gateway and serves a traced
 * request (a caller's traceparent, handed on to nowhere but v1), while a
 * module hook records every module it resolves. (prom-client loads
 * `@opentelemetry/api`, a no-op facade, for its exemplars whatever tracing
 * does; the SDK, the exporters and otel.ts are what must stay out.)
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const SCRIPT = `
import { registerHooks } from 'node:module';
const resolved = [];
registerHooks({ resolve(specifier, context, next) { resolved.push(specifier); return next(specifier, context); } });
const { loadConfig } = await import('./src/config.ts');
const { buildGateway } = await import('./src/server.ts');
const app = await buildGateway(loadConfig(['--mode', 'native'], {}), { env: JSON.parse(process.env.GATEWAY_ENV), logStream: { write() {} } });
const reply = await app.inject({ method: 'POST', url: '/iam/v2beta1/groups', payload: { name: 'g' }, headers: { authorization: 'Bearer t', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
await app.close();
process.stdout.write(JSON.stringify({ status: reply.statusCode, tracing: app.tracing, otel: resolved.filter((s) => (s.startsWith('@opentelemetry/') && s !== '@opentelemetry/api') || s.endsWith('otel.ts')) }));
`;

async function run(env: Record<string, string>): Promise<{ status: number; tracing: string; otel: string[] }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    cwd: new URL('../../..', import.meta.url).pathname,
    env: { PATH: process.env.PATH, GATEWAY_ENV: JSON.stringify(env) },
  });
  return JSON.parse(stdout);
}

describe('tracing off', () => {
  it('never loads the OpenTelemetry SDK, even for a request that carries a traceparent', async () => {
    const off = await run({});
    expect(off.status).toBe(200);
    expect(off.tracing).toBe('off');
    expect(off.otel).toEqual([]);
  }, 120_000);
});
