/**
 * What every floor process does around its one forward: listen on a loopback port chosen by the OS, say
 * where as one JSON line `{"url"}` on stdout (what bench/lib/children.ts waits for), stop when its parent
 * goes (bench/stop-with-parent.ts), serve the gRPC floors' streams as unary calls, and answer a forward
 * that failed with no more than a failure.
 */
import type { Server as Http1Server, ServerResponse } from 'node:http';
import type { Http2Server, IncomingHttpHeaders } from 'node:http2';
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

/** A failed call: the benchmark counts any status but OK, and the floor says no more than that. */
const UNAVAILABLE = { ':status': 200, 'content-type': 'application/grpc+proto', 'grpc-status': '14' };

/**
 * Serves every stream of `server` as a unary gRPC call: the request message read to its end (a server
 * must) and dropped, then `answer`'s framed message sent with status OK in the trailers, or UNAVAILABLE
 * when `answer` throws.
 */
export function answerUnaryCalls(server: Http2Server, answer: (headers: IncomingHttpHeaders) => Promise<Buffer>): void {
  server.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    stream.resume();
    stream.once('end', async () => {
      try {
        const message = await answer(headers);
        stream.respond({ ':status': 200, 'content-type': 'application/grpc+proto' }, { waitForTrailers: true });
        stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(message);
      } catch {
        if (!stream.headersSent && !stream.destroyed) stream.respond(UNAVAILABLE, { endStream: true });
      }
    });
  });
}

/** A forward that failed: 502 while nothing was sent, else the answer cut off. The benchmark counts any non-200. */
export function forwardFailed(response: ServerResponse): void {
  if (!response.headersSent) response.writeHead(502).end();
  else response.destroy();
}
