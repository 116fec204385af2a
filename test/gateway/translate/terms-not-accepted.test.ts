/**
 * v1's terms refusal reaches a v2 client with the v2 detail type: a v1 that
 * requires a document answers FAILED_PRECONDITION with
 * `chainguard.platform.iam.TermsNotAcceptedDetail`; the gateway hands it on as
 * `chainguard.platform.iam.v2beta1.TermsNotAcceptedDetail`, in the AIP-193 body
 * and in grpc-status-details-bin. Accepting the document through v2 clears it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../../support/grpc.ts';
import { aip, startStack, type Stack } from '../../support/stack.ts';

const V2_DETAIL = 'type.googleapis.com/chainguard.platform.iam.v2beta1.TermsNotAcceptedDetail';

describe('TermsNotAccepted from v1', () => {
  let stack: Stack;
  let grpc: GrpcClient;
  beforeAll(async () => {
    stack = await startStack({ emulator: { requiredTerms: ['guardener-tos.v1'] } });
    grpc = new GrpcClient(stack.url);
  });
  afterAll(async () => {
    grpc.close();
    await stack.close();
  });

  it('carries the missing documents under the v2 type on REST and gRPC, until they are accepted', async () => {
    const org = (await stack.client.post('/iam/v2beta1/groups', { name: 'terms-gate' })).body.uid;
    const rest = await stack.client.post(`/registry/v2beta1/repos/${org}`, { name: 'app' });
    expect(rest.status).toBe(400);
    expect(aip(rest).code).toBe(9);
    const detail = rest.body.details.find((d: any) => d['@type'].endsWith('TermsNotAcceptedDetail'));
    expect(detail).toEqual({ '@type': V2_DETAIL, missing: [expect.objectContaining({ id: 'guardener-tos.v1' })] });

    const failure = await rejected(grpc.call('chainguard.platform.registry.v2beta1.ReposService', 'CreateRepo', { parent: org, repo: { name: 'app' } }));
    expect(failure.code).toBe(9);
    expect(failure.details.find((d: any) => String(d['@type']).endsWith('TermsNotAcceptedDetail'))).toMatchObject({ '@type': V2_DETAIL, missing: [{ id: 'guardener-tos.v1' }] });

    expect((await stack.client.post(`/iam/v2beta1/terms/${org}`, { documentIds: ['guardener-tos.v1'] })).status).toBe(200);
    expect((await stack.client.post(`/registry/v2beta1/repos/${org}`, { name: 'app' })).status).toBe(200);
  });
});
