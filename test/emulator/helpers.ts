/** Shared plumbing for the emulator suites: a real server on an ephemeral port and a tiny JSON client. */
import { afterAll, beforeAll } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/v1/index.ts';

export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- responses are asserted field by field

export interface Reply {
  status: number;
  body: Json;
  headers: Headers;
}

export interface Client {
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  get(path: string): Promise<Reply>;
  post(path: string, body?: unknown): Promise<Reply>;
  put(path: string, body?: unknown): Promise<Reply>;
  del(path: string): Promise<Reply>;
}

/** `body` strings are sent verbatim (to test malformed JSON); anything else is JSON-encoded. */
export function client(url: string, token: string | null = 'test-token'): Client {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...headers },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
  };
  return {
    call,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body ?? {}),
    put: (path, body) => call('PUT', path, body ?? {}),
    del: (path) => call('DELETE', path),
  };
}

/** Starts one emulator for the enclosing suite; read `.emu`/`.api` inside tests. */
export function useEmulator(options: EmulatorOptions = {}): { emu: RunningEmulator; api: Client } {
  const ctx = {} as { emu: RunningEmulator; api: Client };
  beforeAll(async () => {
    ctx.emu = await startEmulator({ port: 0, ...options });
    ctx.api = client(ctx.emu.url);
  });
  afterAll(async () => {
    await ctx.emu.close();
  });
  return ctx;
}

/** A clock that starts at a microsecond-precise instant and ticks one microsecond per read. */
export function pinnedClock(startMicros = 1_795_000_000_123_456): () => number {
  let now = startMicros;
  return () => now++;
}

export const ROOT_UID = /^[0-9a-f]{40}$/;
export const CHILD_OF = (parent: string): RegExp => new RegExp(`^${parent}/[0-9a-f]{16}$`);
export const MICROS_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export const ids = (reply: Reply): string[] => (reply.body.items as Json[]).map((item) => item.id as string);
