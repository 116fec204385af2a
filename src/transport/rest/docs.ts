/**
 * The API's own description: `GET /openapi.json` (always; no token needed, it
 * says only what the contract does) and, behind `--docs`, a page at `/docs`
 * that renders it with Swagger UI, served from the package's own files — no
 * CDN, so it works on a closed network and sends the browser nowhere else.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ApiError, notFound } from '../../aip/errors.ts';
import { Code } from '../../rpc-status.ts';

/** The two files of swagger-ui-dist the page loads, read once at start. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>v2gw — the v2beta1 API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="api"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/start.js"></script>
</body>
</html>
`;

// A file of its own, not inline: the page's Content-Security-Policy allows scripts from this origin only.
const START = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#api', deepLinking: true, validatorUrl: null });\n`;

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'";

export interface DocsOptions {
  /**
   * Makes the document from the served bindings; called on the first request for it, since most
   * gateways are never asked (the document and the work of making it are ~1 MB a process would hold).
   */
  document: () => object;
  /** Serve the page at /docs too. */
  page: boolean;
}

export function registerDocs(app: FastifyInstance, options: DocsOptions): void {
  let json: string | undefined;
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send((json ??= JSON.stringify(options.document()))));
  if (!options.page) {
    // Someone who opens /docs wants the page: say how to turn it on rather than that no such route exists.
    const off = async (): Promise<never> => {
      throw new ApiError(Code.NOT_FOUND, 'the /docs page is off: start the gateway with --docs (or V2GW_DOCS=true) to serve it; /openapi.json is served either way');
    };
    app.get('/docs', off);
    app.get('/docs/*', off);
    return;
  }
  const root = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readFileSync(join(root, name)) }]));
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(PAGE));
  app.get('/docs/start.js', async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(START));
  app.get<{ Params: { file: string } }>('/docs/:file', async (request, reply) => {
    const file = files.get(request.params.file);
    if (!file) throw notFound('file', request.params.file);
    return reply.type(file.type).header('cache-control', 'public, max-age=86400').send(file.body);
  });
}
