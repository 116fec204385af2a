/** One access line per request, on REST and on gRPC alike; health probes log none; no credential is ever in it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../../support/grpc.ts';
import { startStack, type Stack } from '../../support/stack.ts';

const IAM = 'chainguard.platform.iam.v2beta1';
let stack: Stack;
let grpc: GrpcClient;

beforeAll(async () => {
  stack = await startStack({ emulator: { seed: 'demo' } });
  grpc = new GrpcClient(stack.url);
});

afterAll(async () => {
  grpc.close();
  await stack.close();
});

const entries = () => stack.logs.map((line) => JSON.parse(line) as Record<string, any>);
const linesOf = (requestId: string) => entries().filter((e) => e.reqId === requestId || e.req?.id === requestId);

async function settle(): Promise<void> {
  // pino writes asynchronously to the stream; the line follows the answer by a tick.
  await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('access log', () => {
  it('writes one line for a REST request: method, path, status, time, allowlisted headers with credentials censored', async () => {
    const reply = await stack.client.get('/iam/v2beta1/groups', {}, { authorization: 'Bearer sk-do-not-log-111', headers: { 'x-request-id': 'rest-ok-1' } });
    expect(reply.status).toBe(200);
    await settle();
    const lines = linesOf('rest-ok-1');
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({ level: 30, msg: 'request', req: { method: 'GET', url: '/iam/v2beta1/groups' }, res: { statusCode: 200 } });
    expect(line!.req.headers.authorization).toBe('[REDACTED]');
    // Short: the request id once (reqId), the time to the microsecond.
    expect(line).toMatchObject({ reqId: 'rest-ok-1' });
    expect(line!.req).not.toHaveProperty('id');
    expect(String(line!.responseTime)).toMatch(/^\d+(\.\d{1,3})?$/);
    expect(stack.logs.join('\n')).not.toContain('sk-do-not-log-111');
  });

  it('writes one line for a failed REST request besides nothing else at info', async () => {
    const reply = await stack.client.get('/iam/v2beta1/groups/zzz', {}, { headers: { 'x-request-id': 'rest-bad-1' } });
    expect(reply.status).toBe(400);
    await settle();
    const lines = linesOf('rest-bad-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'request', res: { statusCode: 400 } });
  });

  it('writes one line for a gRPC call, with the RPC and its code, whether it succeeds or fails', async () => {
    const before = stack.logs.length;
    await grpc.call(`${IAM}.GroupsService`, 'ListGroups', {}, { authorization: 'Bearer sk-do-not-log-222' });
    const failure = await rejected(grpc.call(`${IAM}.GroupsService`, 'GetGroup', { uid: 'not-a-uidp' }));
    expect(failure.code).toBe(3);
    await settle();
    const added = stack.logs.slice(before).map((l) => JSON.parse(l)).filter((e) => e.msg === 'request');
    const list = added.filter((e) => e.rpc === `${IAM}.GroupsService/ListGroups`);
    const get = added.filter((e) => e.rpc === `${IAM}.GroupsService/GetGroup`);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ level: 30, code: 0 });
    expect(get).toHaveLength(1);
    expect(get[0]).toMatchObject({ code: 3 });
    expect(String(get[0].responseTime)).toMatch(/^\d+(\.\d{1,3})?$/);
    // One line per call: request ids are not repeated.
    const ids = added.map((e) => e.reqId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(stack.logs.join('\n')).not.toContain('sk-do-not-log-222');
  });

  it('logs nothing at info for health probes, and never the two framework lines', async () => {
    const before = stack.logs.length;
    expect((await stack.client.get('/healthz')).status).toBe(200);
    expect((await stack.client.get('/readyz')).status).toBe(200);
    await settle();
    expect(stack.logs.slice(before).filter((l) => JSON.parse(l).msg === 'request')).toEqual([]);
    expect(stack.logs.join('\n')).not.toMatch(/incoming request|request completed/);
  });
});
