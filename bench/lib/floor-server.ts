/**
 * What every floor process does around its one forward: listen on a loopback port chosen by the OS, say
 * where as one JSON line `{"url"}` on stdout (what bench/lib/children.ts waits for), stop when its parent
 * goes (bench/stop-with-parent.ts), serve the gRPC floors' streams as unary calls, and answer a forward
 * that failed with no more than a failure.
 */
import type { FastifyInstance } from 'fastify';
import type { Server as Http1Server, ServerResponse } from 'node:http';
import type { Http2Server, IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { Pool } from 'undici';
import { stopWithParent } from '../stop-with-parent.ts';

/**
 * node:http taken as the gateway takes it (src/node-http.ts says why: an ES module import of it loads
 * Node's own undici too), so a floor holds no memory the gateway does not.
 */
export const http: typeof import('node:http') = process.getBuiltinModule('node:http');

/** Listens on loopback and prints `{"url"}` once listening; when the parent goes, closes the server (its connections too) and then `v1`. */
export function serveOnLoopback(server: Http1Server | Http2Server, v1: Pool): void {
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  });
  stopWithParent(async () => {
    server.close();
    if ('closeAllConnections' in server) server.closeAllConnections();
    await v1.close();
  });
}

/** serveOnLoopback for a floor in a Fastify app: listens on loopback, prints `{"url"}`, and when the parent goes, closes the app and then `v1`. */
export async function serveAppOnLoopback(app: FastifyInstance, v1: Pool): Promise<void> {
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`${JSON.stringify({ url })}\n`);
  stopWithParent(async () => {
    await app.close();
    await v1.close();
  });
}

/** The status codes a floor's calls end with, as `CallKeeping` is told them: OK, or UNAVAILABLE (below) for any failure. */
const OK = 0;
const FAILED = 14;

/** A failed call: the benchmark counts any status but OK, and the floor says no more than that. */
const UNAVAILABLE = { ':status': 200, 'content-type': 'application/grpc+proto', 'grpc-status': '14' };

/** What a floor keeps of its calls beside answering them (bench/lib/least-duties.ts); the plain floors keep nothing. */
export interface CallKeeping {
  /** A call came in; answers what `ended` takes. */
  started(): number;
  /** The call ended with this gRPC status code; `startedAt` is what `started` answered. */
  ended(code: number, startedAt: number, userAgent: unknown): void;
  /** Answers a stream that is no call (GET `/metrics`), and says whether it did. */
  served(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): boolean;
}

/**
 * Serves every stream of `server` as a unary gRPC call: the request message read to its end (a server
 * must) and dropped, then `answer`'s framed message sent with status OK in the trailers, or UNAVAILABLE
 * when `answer` throws. With `keeping`, each call is told to it as it starts and once its answer is
 * written (or refused), and a stream it serves is not a call.
 */
export function answerUnaryCalls(server: Http2Server, answer: (headers: IncomingHttpHeaders) => Promise<Buffer>, keeping?: CallKeeping): void {
  server.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    if (keeping?.served(stream, headers)) return;
    const startedAt = keeping ? keeping.started() : 0;
    stream.resume();
    stream.once('end', async () => {
      try {
        const message = await answer(headers);
        stream.respond({ ':status': 200, 'content-type': 'application/grpc+proto' }, { waitForTrailers: true });
        stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(message);
        keeping?.ended(OK, startedAt, headers['user-agent']);
      } catch {
        if (!stream.headersSent && !stream.destroyed) stream.respond(UNAVAILABLE, { endStream: true });
        keeping?.ended(FAILED, startedAt, headers['user-agent']);
      }
    });
  });
}

/** A forward that failed: 502 while nothing was sent, else the answer cut off. The benchmark counts any non-200. */
export function forwardFailed(response: ServerResponse): void {
  if (!response.headersSent) response.writeHead(502).end();
  else response.destroy();
}
