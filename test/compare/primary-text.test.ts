/**
 * The primary's answer handed to the comparison as the JSON text the caller got (compare/sent-text.ts):
 * a candidate answering those very bytes is equal without either side being parsed; any other bytes
 * are read and compared as messages, as before.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DescMethod } from '@bufbuild/protobuf';
import { contract } from '../../src/contract/registry.ts';
import { RestCandidate } from '../../src/compare/candidate-rest.ts';
import type { Finding } from '../../src/compare/comparer.ts';
import { OffThreadComparisons, type ShadowJob } from '../../src/compare/off-thread.ts';
import { SAME_AS_PRIMARY } from '../../src/compare/outcome.ts';
import { sentText, serializeRemembering } from '../../src/compare/sent-text.ts';
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

describe('the primary\'s answer as the text the caller got', () => {
  it('is kept by the serializer a comparing gateway\'s routes use, and is that serializer\'s output', () => {
    const document = { uid: 'ab', labels: { a: 'b' } };
    expect(serializeRemembering(document)).toBe(JSON.stringify(document));
    expect(sentText(document)).toBe(JSON.stringify(document));
    expect(sentText({ uid: 'ab' })).toBeUndefined();
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
