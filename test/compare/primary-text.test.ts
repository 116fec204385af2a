/**
 * The primary's answer handed to the comparison as the JSON text the caller got (kept on the request's
 * context by the REST routes of a comparing gateway): a candidate answering those very bytes is equal
 * without either side being parsed; any other bytes are read and compared as messages, as before.
 */
import { createServer, type Server } from 'node:http';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DescMethod } from '@bufbuild/protobuf';
import { notFound } from '../../src/aip/errors.ts';
import { bindContract, forMode } from '../../src/contract/bindings.ts';
import { apiServices, contract } from '../../src/contract/registry.ts';
import { RestCandidate } from '../../src/compare/candidate-rest.ts';
import type { Finding } from '../../src/compare/comparer.ts';
import { OffThreadComparisons, type ShadowJob } from '../../src/compare/off-thread.ts';
import { SAME_AS_PRIMARY } from '../../src/compare/outcome.ts';
import type { Runner } from '../../src/port/runner.ts';
import type { RequestContext } from '../../src/request/context.ts';
import { installErrorHandling } from '../../src/transport/rest/errors.ts';
import { v2Routes } from '../../src/transport/rest/routes.ts';
import { MAPPINGS } from '../../mappings/index.ts';
import { closeLocal, listenLocal } from '../support/local-http.ts';

const GET_GROUP = 'chainguard.platform.iam.v2beta1.GroupsService/GetGroup';
const getGroup: DescMethod = contract.getService('chainguard.platform.iam.v2beta1.GroupsService')!.methods.find((m) => m.name === 'GetGroup')!;
const PRIMARY = '{"uid":"ab","name":"team","description":"the team"}';
/** What the candidate answers, by the uid asked for. */
const ANSWERS: Record<string, string> = {
  same: PRIMARY,
  reordered: '{"description":"the team","name":"team","uid":"ab"}',
  other: '{"uid":"ab","name":"team","description":"another team"}',
};

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const uid = decodeURIComponent(request.url!.split('/').at(-1)!);
    response.writeHead(200, { 'content-type': 'application/json' }).end(ANSWERS[uid] ?? '{}');
  });
  url = await listenLocal(server);
});

afterAll(async () => {
  await closeLocal(server);
});

/** The REST routes over a runner that answers a group, or NOT_FOUND for `missing`; each call's context kept. */
async function restRoutes(keepSentText: boolean) {
  const contexts: RequestContext[] = [];
  const runner: Runner = {
    execute: async (op, ctx) => {
      contexts.push(ctx);
      const uid = (op as { uid: string }).uid;
      if (uid === 'missing') throw notFound('group', uid);
      return { uid, name: 'team', labels: { a: 'b' } };
    },
  };
  const app = Fastify();
  installErrorHandling(app);
  const bindings = forMode(bindContract(apiServices(), MAPPINGS), 'translate').served;
  await app.register(v2Routes, { bindings, unserved: [], runner, budgetMs: 5000, versions: ['v2beta1'], debugHeaders: false, keepSentText });
  return { app, contexts };
}

describe('the primary\'s answer as the text the caller got', () => {
  it('is kept on the request\'s context by a comparing gateway\'s REST routes, byte for byte what was sent, an error\'s body not', async () => {
    const keeping = await restRoutes(true);
    const plain = await restRoutes(false);
    try {
      for (const uid of ['ab', 'missing']) {
        const [kept, sent] = await Promise.all([keeping, plain].map(({ app }) => app.inject({ method: 'GET', url: `/iam/v2beta1/groups/${uid}` })));
        // The caller gets what a gateway that keeps nothing sends: the same status, type and bytes.
        expect(kept!.statusCode).toBe(sent!.statusCode);
        expect(kept!.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(kept!.headers['content-type']).toBe(sent!.headers['content-type']);
        expect(kept!.body).toBe(sent!.body);
        expect(keeping.contexts.at(-1)!.sentText).toBe(uid === 'missing' ? undefined : kept!.body);
        expect(plain.contexts.at(-1)!.sentText).toBeUndefined();
      }
    } finally {
      await keeping.app.close();
      await plain.app.close();
    }
  });

  it('makes a candidate answering its very bytes the same answer, unread; other bytes are read', async () => {
    const candidate = new RestCandidate(url);
    try {
      const bytes = Buffer.from(PRIMARY);
      const ask = (uid: string) => candidate.ask(getGroup, { uid }, 'Bearer t', AbortSignal.timeout(5000), bytes);
      expect(await ask('same')).toBe(SAME_AS_PRIMARY);
      expect(await ask('reordered')).toEqual({ kind: 'answer', message: JSON.parse(ANSWERS.reordered!) });
      expect(await candidate.ask(getGroup, { uid: 'same' }, 'Bearer t', AbortSignal.timeout(5000))).toEqual({ kind: 'answer', message: JSON.parse(PRIMARY) });
    } finally {
      await candidate.close();
    }
  });

  it('compares on the worker: the same bytes and the same JSON are equal, another value differs', async () => {
    const found: Array<[string, Finding['result']]> = [];
    const comparisons = new OffThreadComparisons({
      settings: { url, protocol: 'rest', capacity: 10, concurrency: 4, timeoutMs: 5000, noise: false, retryMs: 0, keepSamples: false, batchMs: 10, batchSize: 64 },
      record: (_name, finding, times) => found.push(...Array.from({ length: times }, (): [string, Finding['result']] => [_name, finding.result])),
      dropped: () => {},
      warn: () => {},
    });
    try {
      await comparisons.ready();
      const job = (uid: string): ShadowJob => ({
        name: GET_GROUP,
        request: { uid },
        // The document is not what crosses when the text is known: a wrong one here must not count.
        primary: { kind: 'answer', message: { uid: 'not what was sent' } },
        primaryText: PRIMARY,
        authorization: 'Bearer t',
        readOnly: true,
        protocol: 'rest',
        askPrimary: async () => ({ kind: 'unanswered', why: 'not asked' }),
      });
      for (const uid of ['same', 'reordered', 'other']) {
        expect(comparisons.offer(job(uid))).toBe(true);
        await comparisons.drained();
      }
      expect(found.map(([, result]) => result)).toEqual(['equal', 'equal', 'value']);
    } finally {
      await comparisons.close();
    }
  });
});
