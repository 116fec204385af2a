/**
 * `/docs` on a gateway started without `--docs`: an AIP-193 NOT_FOUND that says how to turn the page on,
 * over real HTTP, rather than a 404 naming no such route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';

describe('/docs without --docs', () => {
  let plain: Stack;
  beforeAll(async () => {
    plain = await startStack();
  });
  afterAll(async () => {
    await plain?.close();
  });

  for (const path of ['/docs', '/docs/', '/docs/swagger-ui.css']) {
    it(`GET ${path} answers NOT_FOUND naming --docs and V2GW_DOCS`, async () => {
      const response = await fetch(new URL(path, plain.url));
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await response.json()) as { code: number; message: string; details: Array<Record<string, unknown>> };
      expect(body.code).toBe(5);
      expect(body.message).toContain('start the gateway with --docs (or V2GW_DOCS=true)');
      expect(body.details[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'NOT_FOUND' });
    });
  }

  it('still serves /openapi.json', async () => {
    expect((await fetch(new URL('/openapi.json', plain.url))).status).toBe(200);
  });
});
