/**
 * One port for REST (HTTP/1.1) and gRPC (HTTP/2).
 *
 * gRPC clients speak cleartext HTTP/2 with prior knowledge (h2c), and Node's
 * http2 server cannot also take cleartext HTTP/1.1 (allowHTTP1 needs TLS). So
 * in cleartext each new connection is sniffed: the HTTP/2 connection preface
 * sends it to an http2 server, anything else to HTTP/1.1. With TLS, ALPN picks
 * the protocol and an http2 secure server with allowHTTP1 does both.
 *
 * The object returned is an `http.Server` (Fastify's `serverFactory` and its
 * types expect one) that accepts every TCP connection itself, so `listen`,
 * `address`, and the callback of `close` once every connection is gone, cover
 * both protocols; `close` and `closeAllConnections` reach HTTP/2 sessions too.
 */
import type { IncomingMessage, OutgoingHttpHeaders, RequestListener, Server, ServerOptions, ServerResponse } from 'node:http';
import { http } from '../node-http.ts';
import http2, { type Http2ServerRequest, type Http2ServerResponse, type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import { markNeverIndexedOn } from './never-indexed.ts';

/**
 * Called for every request, HTTP/1 or HTTP/2 (compat API). Written as a method signature, so its
 * parameters are checked bivariantly: Fastify's and ConnectRPC's handlers, typed for one side or
 * with narrower response types, are accepted without a cast.
 */
export type Handler = {
  handle(req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse): void;
}['handle'];

/**
 * Offered every HTTP/2 stream before Node's compatibility API makes a request and a response of it;
 * true when it has taken the stream (and answers it on the stream itself, its headers marked as
 * never-indexed.ts says: the listener marks only the streams it hands on).
 */
export type StreamHandler = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => boolean;

export interface ListenerOptions {
  /** PEM certificate and key: serve TLS, HTTP/2 or HTTP/1.1 as ALPN chooses. Unset: cleartext, h2c by prior knowledge. */
  tls?: { cert: string | Buffer; key: string | Buffer } | undefined;
  /** Most time an HTTP/1 client may take to send a request's headers (slowloris). */
  headersTimeoutMs?: number;
  /** Most time an HTTP/1 client may take to send a whole request, body included; 0 for no limit. At least headersTimeoutMs. */
  requestTimeoutMs?: number;
  /** How long an idle HTTP/1 keep-alive connection is kept. */
  keepAliveTimeoutMs?: number;
  /** How long an HTTP/2 session may stay silent (no byte read or written) before it is sent GOAWAY: within an eighth of it more. */
  sessionTimeoutMs?: number;
  /** How long a new connection may take to show its protocol (or finish the TLS handshake) before it is dropped. */
  sniffTimeoutMs?: number;
}

/**
 * Sidecar defaults (the configuration's, `--headers-timeout-ms` and `--request-receive-timeout-ms`).
 * A client next to the gateway sends its headers in microseconds, so 10 s only ever cuts a stuck or
 * hostile one (Node's own 60 s lets a slowloris hold a socket six times as long); a whole request
 * gets 60 s, twice the v2 request deadline, which also bounds a streamed v1 pass-through upload.
 * Keep-alive and session idle are Fastify's own defaults (72 s, longer than the 60 s idle of
 * common load balancers, so the client, not the server, ends an idle connection).
 */
export const LISTENER_DEFAULTS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 72_000,
  sessionTimeoutMs: 72_000,
  sniffTimeoutMs: 10_000,
} as const satisfies Required<Omit<ListenerOptions, 'tls'>>;

/** RFC 9113 §3.4: what every HTTP/2 client sends first. No HTTP/1 request line can start like it. */
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/**
 * Headers that describe an HTTP/1 connection; RFC 9113 §8.2.2 forbids them in HTTP/2. Node's compat
 * response drops `connection` (with a warning) but throws on the others, and Fastify, sending the
 * same headers again from its error handler, then throws outside any catch: the process dies.
 * A handler written for HTTP/1 must not be able to do that, so HTTP/2 responses drop them all.
 */
const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'http2-settings']);

function connectionSpecific(name: string, value: unknown): boolean {
  const key = name.toLowerCase();
  return CONNECTION_SPECIFIC.has(key) || (key === 'te' && value !== 'trailers');
}

class Http2Response extends http2.Http2ServerResponse {
  override setHeader(name: string, value: number | string | readonly string[]): void {
    if (!connectionSpecific(name, value)) super.setHeader(name, value);
  }

  override writeHead(statusCode: number, ...rest: [(string | OutgoingHttpHeaders | readonly string[])?, (OutgoingHttpHeaders | readonly string[])?]): this {
    const last = rest.length - 1;
    const headers = rest[last];
    if (headers !== undefined && typeof headers === 'object' && !Array.isArray(headers)) {
      rest[last] = Object.fromEntries(Object.entries(headers).filter(([name, value]) => !connectionSpecific(name, value)));
    }
    return super.writeHead(statusCode, ...(rest as [string, OutgoingHttpHeaders]));
  }
}

/** How often, while draining, keep-alive connections that finished their last request are reaped. */
const DRAIN_REAP_MS = 250;

/** `streams` is offered each HTTP/2 stream first; what it leaves goes to `handler` as a request and a response. */
export function createListener(handler: Handler, options: ListenerOptions = {}, streams?: StreamHandler): Server {
  return new Listener(handler, { ...LISTENER_DEFAULTS, ...definedOnly(options) }, streams);
}

type Settings = Required<Omit<ListenerOptions, 'tls'>> & Pick<ListenerOptions, 'tls'>;

class Listener extends http.Server {
  /** Where HTTP/2 goes: an h2c server, or with TLS the secure server that also does HTTP/1.1. Never listens itself. */
  readonly #inner: http2.Http2Server | http2.Http2SecureServer;
  /** Every TCP connection accepted, whatever it became, for closeAllConnections. */
  readonly #sockets = new Set<Socket>();
  /** Connections still showing their protocol: nothing in flight, so close() may drop them. */
  readonly #sniffing = new Set<Socket>();
  readonly #tls: boolean;
  #closing = false;

  constructor(handler: Handler, settings: Settings, streams?: StreamHandler) {
    if (settings.requestTimeoutMs > 0 && settings.headersTimeoutMs > settings.requestTimeoutMs) {
      throw new RangeError(`the headers timeout (${settings.headersTimeoutMs} ms) cannot be longer than the whole request's (${settings.requestTimeoutMs} ms)`);
    }
    const http1: ServerOptions = {
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      // Node checks header/request deadlines only this often (30 s by default), so they would overrun by that much.
      connectionsCheckingInterval: 1_000,
    };
    super(http1, handler as RequestListener);
    this.#tls = settings.tls !== undefined;

    if (settings.tls) {
      this.#inner = http2.createSecureServer(
        {
          http1Options: http1,
          Http2ServerResponse: Http2Response,
          cert: settings.tls.cert,
          key: settings.tls.key,
          allowHTTP1: true,
          ALPNProtocols: ['h2', 'http/1.1'],
          handshakeTimeout: settings.sniffTimeoutMs,
        },
        handler,
      );
      // The secure server tracks its HTTP/1 connections (deadlines, closeIdleConnections) only once it
      // has 'listened'; it never does, as the TCP port is ours, so start that tracking now.
      this.#inner.emit('listening');
      // TLS and HTTP/1 parse errors land on the inner server; Fastify listens for them on this one.
      this.#inner.on('clientError', (error: Error, socket: Socket) => {
        if (!this.emit('clientError', error, socket)) socket.destroy();
      });
      const tls = this.#inner;
      this.#replaceConnectionListener((socket) => tls.emit('connection', socket));
    } else {
      this.#inner = http2.createServer({ Http2ServerResponse: Http2Response }, handler);
      const toHttp1 = this.listeners('connection')[0] as (socket: Socket) => void;
      this.#replaceConnectionListener((socket) => this.#sniff(socket, settings.sniffTimeoutMs, toHttp1));
    }

    this.#offerStreams(streams);

    const silence = new SilenceSweep(settings.sessionTimeoutMs);
    this.#inner.on('session', (session: Http2Session) => {
      if (this.#closing) return session.close();
      silence.watch(session);
    });
  }

  /**
   * Node's compatibility API turns each HTTP/2 stream into a request and a response in a 'stream'
   * listener of its own. That listener is put behind one that first offers the stream to `streams`: the
   * unary gRPC calls answered on the stream itself cost neither the request and response objects nor
   * reading the message through them, and mark the headers they write themselves (never-indexed.ts).
   * A stream `streams` leaves gets its headers marked on the way out, then goes to the compatibility API. GetGroup (h2load, alternating with the compatibility API's path):
   * 123–141 against 135–155 µs of CPU a call at 50 sessions, p50 355–402 against 371–433 µs at one.
   */
  #offerStreams(streams: StreamHandler | undefined): void {
    const inner = this.#inner;
    const compatibility = inner.listeners('stream') as Array<(...args: unknown[]) => void>;
    inner.removeAllListeners('stream');
    // Node's 'stream' arguments named, not gathered: a rest parameter is an array made for every stream.
    inner.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number, rawHeaders: string[]) => {
      if (streams?.(stream, headers)) return;
      markNeverIndexedOn(stream);
      for (const listener of compatibility) listener.call(inner, stream, headers, flags, rawHeaders);
    });
  }

  /**
   * http.Server handles HTTP/1 in its own 'connection' listener; it is replaced by one that first
   * decides where the connection goes (emitting 'connection' on a server is Node's documented way
   * to hand it a socket).
   */
  #replaceConnectionListener(route: (socket: Socket) => void): void {
    this.removeAllListeners('connection');
    this.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
      // Before the protocol handlers attach theirs, an error (a reset) would crash the process.
      socket.on('error', () => socket.destroy());
      route(socket);
    });
  }

  #sniff(socket: Socket, timeoutMs: number, toHttp1: (socket: Socket) => void): void {
    let seen: Buffer = Buffer.alloc(0);
    const done = (): void => {
      this.#sniffing.delete(socket);
      socket.off('data', onData).off('end', drop).off('timeout', drop).off('close', done).setTimeout(0);
    };
    const drop = (): void => {
      done();
      socket.destroy();
    };
    const onData = (chunk: Buffer): void => {
      seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
      const n = Math.min(seen.length, PREFACE.length);
      const h2 = seen.subarray(0, n).equals(PREFACE.subarray(0, n));
      if (h2 && n < PREFACE.length) return; // a strict prefix so far: wait for more
      done();
      // Give the bytes back so the chosen server reads the connection from its first byte.
      socket.pause();
      socket.unshift(seen);
      if (h2) {
        // Accepted by this http.Server, the socket allows half-open connections, as HTTP/1 wants; an
        // http2 server's own sockets do not, and its session ends only when the socket closes. Left
        // half-open, a client that vanished mid-request kept its session, and close(), waiting forever.
        socket.allowHalfOpen = false;
        this.#inner.emit('connection', socket); // reads what is buffered, then takes over the socket
      } else {
        toHttp1.call(this, socket);
        // HTTP/1 reads new bytes straight off the handle but buffered ones from 'data', which needs flowing.
        socket.resume();
      }
    };
    this.#sniffing.add(socket);
    socket.on('data', onData).once('end', drop).once('timeout', drop).once('close', done).setTimeout(timeoutMs);
  }

  /**
   * Stops accepting; HTTP/2 sessions get GOAWAY and finish their streams; idle HTTP/1 connections
   * close now, busy ones once their response is done. `callback` runs when every connection is gone.
   */
  override close(callback?: (error?: Error) => void): this {
    if (!this.#closing) {
      this.#closing = true;
      for (const socket of this.#sniffing) socket.destroy();
      this.#inner.close(); // GOAWAY to every session (and, with TLS, idle HTTP/1 connections closed)
      // Node closes only the keep-alive connections idle at close(); one busy now would linger a whole
      // keep-alive timeout after its response unless reaped when it goes idle.
      const reaper = setInterval(() => this.closeIdleConnections(), DRAIN_REAP_MS).unref();
      this.once('close', () => clearInterval(reaper));
    }
    return super.close(callback);
  }

  override closeIdleConnections(): void {
    super.closeIdleConnections();
    // Node's secure server has it (for its allowHTTP1 connections); @types/node does not declare it.
    if (this.#tls) (this.#inner as unknown as Pick<Server, 'closeIdleConnections'>).closeIdleConnections();
  }

  /** Drops every connection at once, HTTP/2 sessions included. */
  override closeAllConnections(): void {
    for (const socket of this.#sockets) socket.destroy();
  }
}

/** How many sweeps a session timeout is divided into: a silent session is closed between one timeout and 1 1/8 of it. */
const SWEEPS_PER_TIMEOUT = 8;

/**
 * Sends GOAWAY to each HTTP/2 session silent (no byte read or written) for `timeoutMs`: graceful, like
 * Fastify's own http2 servers, in-flight streams finish and the client reconnects.
 *
 * Why not `session.setTimeout`: Node then refreshes the session's timer (takes it out of its timer list
 * and puts it back at the end) on every frame the session reads or writes, several times a unary call.
 * Sweeping the sessions a few times a timeout does the same job with none of that per call: a session's
 * socket counts the bytes it moved, and a count unchanged for a whole timeout is silence.
 */
class SilenceSweep {
  readonly #timeoutMs: number;
  /** Each session watched: the bytes its socket had moved when last swept, and since when that count stood. */
  readonly #sessions = new Map<Http2Session, { moved: number; since: number }>();
  #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  watch(session: Http2Session): void {
    this.#sessions.set(session, { moved: moved(session), since: performance.now() });
    session.once('close', () => this.#forget(session));
    this.#timer ??= setInterval(() => this.#sweep(), Math.max(1, Math.floor(this.#timeoutMs / SWEEPS_PER_TIMEOUT))).unref();
  }

  #forget(session: Http2Session): void {
    this.#sessions.delete(session);
    if (this.#sessions.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #sweep(): void {
    const now = performance.now();
    for (const [session, seen] of this.#sessions) {
      if (session.closed || session.destroyed) {
        this.#forget(session);
        continue;
      }
      const bytes = moved(session);
      if (bytes !== seen.moved) {
        seen.moved = bytes;
        seen.since = now;
      } else if (now - seen.since >= this.#timeoutMs) {
        this.#forget(session);
        session.close();
      }
    }
  }
}

/** The bytes a session's socket has read and written so far. */
function moved(session: Http2Session): number {
  const socket = session.socket as Socket | undefined;
  return socket ? socket.bytesRead + socket.bytesWritten : 0;
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
