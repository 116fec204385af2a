/**
 * What every floor process does around its one forward: listen on a loopback port chosen by the OS, say
 * where as one JSON line `{"url"}` on stdout (what bench/lib/children.ts waits for), stop when its parent
 * goes (bench/stop-with-parent.ts), and answer a forward that failed with no more than a failure.
 */
import type { Server as Http1Server, ServerResponse } from 'node:http';
import type { Http2Server } from 'node:http2';
import type { Pool } from 'undici';
import { stopWithParent } from '../stop-with-parent.ts';

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

/** A forward that failed: 502 while nothing was sent, else the answer cut off. The benchmark counts any non-200. */
export function forwardFailed(response: ServerResponse): void {
  if (!response.headersSent) response.writeHead(502).end();
  else response.destroy();
}
