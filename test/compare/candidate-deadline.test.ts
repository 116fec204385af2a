/**
 * A REST candidate's calls follow the comparison's deadline, the signal the queue gives the comparisons
 * started together (queue.ts), through one listener on it for all of them (compare/deadline-listeners.ts):
 * a call under way still ends when it aborts, as not answered.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DescMethod } from '@bufbuild/protobuf';
import { contract } from '../../src/contract/registry.ts';
import { RestCandidate } from '../../src/compare/candidate-rest.ts';
import { closeLocal, listenLocal } from '../support/local-http.ts';

const getGroup: DescMethod = contract.getService('chainguard.platform.iam.v2beta1.GroupsService')!.methods.find((m) => m.name === 'GetGroup')!;

let server: Server;
let url: string;

beforeAll(async () => {
  // `silent` never answers; any other uid is answered at once.
  server = createServer((request, response) => {
    if (request.url!.endsWith('/silent')) return;
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"uid":"ab"}');
  });
  url = await listenLocal(server);
});

afterAll(async () => {
  await closeLocal(server);
});

describe('a REST candidate\'s calls and the comparison\'s deadline', () => {
  it('add one listener to a deadline they share, not one a call', async () => {
    const candidate = new RestCandidate(url);
    const deadline = new AbortController();
    let added = 0;
    const add = deadline.signal.addEventListener.bind(deadline.signal);
    deadline.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++;
      add(...args);
    }) as typeof add;
    try {
      for (const uid of ['a', 'b', 'c']) expect(await candidate.ask(getGroup, { uid }, 'Bearer t', deadline.signal)).toEqual({ kind: 'answer', message: { uid: 'ab' } });
      expect(added).toBe(1);
    } finally {
      await candidate.close();
    }
  });

  it('end when it passes, a call under way as not answered, and one started after it at once', async () => {
    const candidate = new RestCandidate(url);
    const deadline = new AbortController();
    try {
      const waiting = candidate.ask(getGroup, { uid: 'silent' }, 'Bearer t', deadline.signal);
      await new Promise((resolve) => setTimeout(resolve, 50));
      deadline.abort(new DOMException('past', 'TimeoutError'));
      expect(await waiting).toEqual({ kind: 'unanswered', why: 'the comparison\'s deadline passed' });
      expect(await candidate.ask(getGroup, { uid: 'a' }, 'Bearer t', deadline.signal)).toEqual({ kind: 'unanswered', why: 'the comparison\'s deadline passed' });
    } finally {
      await candidate.close();
    }
  });
});
