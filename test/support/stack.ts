/**
 * A gateway and a v1 emulator on real loopback ports, and a small client for
 * talking to the gateway over HTTP as an API client would.
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { H2CClient, fetch as undiciFetch } from 'undici';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/v1/index.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { buildGateway, type GatewayOptions } from '../../src/server.ts';
import { checkAnswer } from './contract.ts';

export const TOKEN = 'Bearer test-token-0123456789';

export interface Reply<T = any> {
  /** What was asked: the method and the path, without the query. */
  request: { method: string; path: string };
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  body?: unknown;
  /** Raw body text, sent as is. */
  raw?: string;
  query?: Record<string, string | number | boolean | string[] | undefined>;
  /** `null` sends no Authorization header. */
  authorization?: string | null;
  headers?: Record<string, string>;
}

export interface ClientOptions {
  /** Speak HTTP/2 by prior knowledge (h2c), as the one port accepts beside HTTP/1.1; the default is HTTP/1.1. */
  http2?: boolean;
}

export class Client {
  readonly baseUrl: string;
  /** Check every v2 answer against the contract's message (contract.ts); off only for tests of deliberately broken answers. */
  checkContract = true;
  /** The HTTP/2 connection; undefined for HTTP/1.1, which goes through the global fetch. */
  readonly #h2: H2CClient | undefined;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.baseUrl = baseUrl;
    this.#h2 = options.http2 ? new H2CClient(baseUrl) : undefined;
  }

  /** Closes the client's own connections (HTTP/2 only: HTTP/1.1 shares the global pool). */
  async close(): Promise<void> {
    await this.#h2?.close();
  }

  async call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<Reply<T>> {
    const url = new URL(path, this.baseUrl);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(v));
    }
    const headers: Record<string, string> = { ...options.headers };
    const authorization = options.authorization === undefined ? TOKEN : options.authorization;
    if (authorization !== null) headers.authorization = authorization;
    let body: string | undefined = options.raw;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response = this.#h2 ? await undiciFetch(url, { method, headers, body, dispatcher: this.#h2 }) : await fetch(url, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (this.checkContract) checkAnswer(method, url.pathname, response.status, parsed);
    return { request: { method, path: url.pathname }, status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, query?: CallOptions['query'], options: CallOptions = {}) {
    return this.call<T>('GET', path, { ...options, query });
  }
  post<T = any>(path: string, body?: unknown, options: CallOptions = {}) {
    return this.call<T>('POST', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, query?: CallOptions['query']) {
    return this.call<T>('PATCH', path, { body, query });
  }
  delete<T = any>(path: string) {
    return this.call<T>('DELETE', path);
  }

  /** Walks every page of a List, following nextPageToken. */
  async listAll(path: string, key: string, query: CallOptions['query'] = {}): Promise<any[]> {
    const rows: any[] = [];
    let token: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const reply = await this.get(path, { ...query, page_token: token });
      if (reply.status !== 200) throw new Error(`list failed: ${reply.status} ${reply.text}`);
      rows.push(...reply.body[key]);
      token = reply.body.nextPageToken;
      if (!token) return rows;
    }
    throw new Error('too many pages');
  }
}

export interface Stack {
  emulator: RunningEmulator;
  gateway: FastifyInstance;
  client: Client;
  url: string;
  logs: string[];
  close(): Promise<void>;
}

export interface StackOptions {
  emulator?: EmulatorOptions;
  /** Settings as the gateway's own flags, e.g. `['--body-limit', '1024']`. */
  flags?: string[];
  gateway?: GatewayOptions;
  /** Point the gateway somewhere other than the emulator. */
  v1Url?: string;
}

export function captureLogs(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

export async function startGateway(v1Url: string, flags: string[] = [], options: GatewayOptions = {}) {
  const config: Config = loadConfig(['--port', '0', '--log-level', 'info', ...flags], {});
  const gateway = await buildGateway({ ...config, v1Url }, options);
  const url = await gateway.listen({ port: 0, host: '127.0.0.1' });
  return { gateway, url };
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const emulator = await startEmulator({ port: 0, ...options.emulator });
  const logs = captureLogs();
  const { gateway, url } = await startGateway(options.v1Url ?? emulator.url, options.flags, { logStream: logs.stream, ...options.gateway });
  return {
    emulator,
    gateway,
    url,
    client: new Client(url),
    logs: logs.lines,
    async close() {
      await gateway.close();
      await emulator.close();
    },
  };
}

export const TIMESTAMP_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const ROOT_UID = /^[0-9a-f]{40}$/;

/** Asserts an AIP-193 body and returns its details by type name. */
export function aip(reply: Reply): { code: number; message: string; byType: Record<string, any> } {
  const body = reply.body;
  if (!body || typeof body.code !== 'number' || typeof body.message !== 'string' || !Array.isArray(body.details)) {
    throw new Error(`not an AIP-193 body: ${reply.status} ${reply.text}`);
  }
  const byType: Record<string, any> = {};
  for (const d of body.details) byType[String(d['@type']).split('.').pop()!] = d;
  return { code: body.code, message: body.message, byType };
}
