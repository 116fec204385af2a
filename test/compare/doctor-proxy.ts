/**
 * A candidate that changes answers in known ways: an HTTP server in front of a
 * real gateway that forwards every call and rewrites the JSON it gets back.
 * It always reverses key order and rewords error messages (neither is a
 * difference); `doctor` makes the differences a test injects. It records what
 * it was asked, and can hold calls until released (a slow candidate), or
 * reset the connections of those `refuse` names (a candidate that never answers them).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Doctor = (body: any, call: { method: string; path: string; count: number }) => any;

export interface DoctorProxy {
  url: string;
  /** Every call received, as `METHOD /path?query`. */
  calls: string[];
  doctor: Doctor;
  /** Calls (`METHOD /path?query`) whose connection is reset unanswered. */
  refuse: (call: string) => boolean;
  /** While set, calls wait for release() before they are forwarded. */
  hold(): void;
  release(): void;
  held(): number;
  close(): Promise<void>;
}

function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)]));
  return value;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

export async function doctorProxy(target: string): Promise<DoctorProxy> {
  const seen = new Map<string, number>();
  let gate: Promise<void> | undefined;
  let open: (() => void) | undefined;
  let waiting = 0;
  const proxy: DoctorProxy = {
    url: '',
    calls: [],
    doctor: (body) => body,
    refuse: () => false,
    hold() {
      gate = new Promise((resolve) => (open = resolve));
    },
    release() {
      open?.();
      gate = undefined;
    },
    held: () => waiting,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer(async (request, response) => {
    const call = `${request.method} ${request.url}`;
    proxy.calls.push(call);
    const count = (seen.get(call) ?? 0) + 1;
    seen.set(call, count);
    if (proxy.refuse(call)) {
      request.socket.resetAndDestroy();
      return;
    }
    if (gate) {
      waiting++;
      await gate;
      waiting--;
    }
    const body = await bodyOf(request);
    const reply = await fetch(target + request.url, {
      method: request.method,
      headers: { authorization: String(request.headers.authorization ?? ''), 'content-type': 'application/json' },
      body: body || undefined,
    });
    let json = JSON.parse((await reply.text()) || '{}');
    if (reply.status >= 400) json.message = `reworded: ${String(json.message).toUpperCase()}`;
    else json = proxy.doctor(json, { method: String(request.method), path: String(request.url), count });
    response.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reversed(json)));
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
