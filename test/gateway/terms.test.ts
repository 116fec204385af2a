/**
 * TermsService over REST and gRPC in every mode: accept documents for an
 * organisation, list acceptances (the group's and its ancestors'), paged with
 * tokens bound to the request.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { ALL_MODES, describeModes } from '../support/modes.ts';
import { aip } from '../support/stack.ts';

const TERMS = 'chainguard.platform.iam.v2beta1.TermsService';

describeModes('terms', (stack) => {
  let grpc: GrpcClient;
  let org: string;
  let team: string;
  const client = () => stack().client;
  beforeAll(async () => {
    grpc = new GrpcClient(stack().url);
    org = (await client().post('/iam/v2beta1/groups', { name: 'terms-org' })).body.uid;
    team = (await client().post(`/iam/v2beta1/groups/${org}`, { name: 'team' })).body.uid;
  });
  afterAll(() => grpc?.close());

  it('accepts documents for a group and echoes them', async () => {
    const reply = await client().post(`/iam/v2beta1/terms/${org}`, { documentIds: ['guardener-tos.v1', 'sfdpa.v1'] });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ group: org, documentIds: ['guardener-tos.v1', 'sfdpa.v1'] });
    const again = await grpc.call(TERMS, 'AcceptTerms', { group: org, documentIds: ['sfdpa.v1'] });
    expect(again.documentIds).toEqual(['sfdpa.v1']);
  });

  it('lists acceptances once per document, with the ancestors\' for a sub-group, paged', async () => {
    const all = await client().get(`/iam/v2beta1/terms/${org}`);
    expect(all.status).toBe(200);
    expect(all.body.termsAcceptances.map((a: any) => a.docId).sort()).toEqual(['guardener-tos.v1', 'sfdpa.v1']);
    expect(all.body.totalCount).toBe('2');
    expect(all.body.termsAcceptances[0].orgUid).toBe(org);
    expect(all.body.termsAcceptances[0].createTime).toMatch(/^\d{4}-/);
    const inherited = await grpc.call(TERMS, 'ListTermsAcceptances', { group: team, orderBy: 'docId desc' });
    expect(inherited.termsAcceptances.map((a: any) => a.docId)).toEqual(['sfdpa.v1', 'guardener-tos.v1']);
    const first = await client().get(`/iam/v2beta1/terms/${org}`, { page_size: 1, order_by: 'doc_id' });
    expect(first.body.termsAcceptances.map((a: any) => a.docId)).toEqual(['guardener-tos.v1']);
    const second = await client().get(`/iam/v2beta1/terms/${org}`, { page_size: 1, order_by: 'doc_id', page_token: first.body.nextPageToken });
    expect(second.body.termsAcceptances.map((a: any) => a.docId)).toEqual(['sfdpa.v1']);
    expect(second.body.nextPageToken ?? '').toBe('');
    // A token is bound to its request: replayed for another group, or another order, it is refused.
    const replayed = await client().get(`/iam/v2beta1/terms/${team}`, { page_size: 1, order_by: 'doc_id', page_token: first.body.nextPageToken });
    expect(replayed.status).toBe(400);
    expect(aip(replayed).byType.BadRequest.fieldViolations[0].field).toBe('page_token');
  });

  it('answers every acceptance time with exactly millisecond precision, over REST and gRPC', async () => {
    const MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    const rest = await client().get(`/iam/v2beta1/terms/${team}`);
    expect(rest.body.termsAcceptances.length).toBeGreaterThan(0);
    for (const acceptance of rest.body.termsAcceptances) expect(acceptance.createTime).toMatch(MILLIS);
    const rpc = await grpc.call(TERMS, 'ListTermsAcceptances', { group: team });
    expect(rpc.termsAcceptances.length).toBeGreaterThan(0);
    // On the wire a Timestamp is seconds and nanos: whole milliseconds leave nothing below them.
    for (const acceptance of rpc.termsAcceptances) expect(acceptance.createTime.nanos % 1_000_000).toBe(0);
    expect(rpc.termsAcceptances.map((a: any) => new Date(Number(a.createTime.seconds) * 1000 + a.createTime.nanos / 1e6).toISOString()).sort())
      .toEqual(rest.body.termsAcceptances.map((a: any) => a.createTime).sort());
  });

  it('refuses no documents, an empty id, an unknown order field and a missing group', async () => {
    expect((await rejected(grpc.call(TERMS, 'AcceptTerms', { group: org, documentIds: [] }))).code).toBe(3);
    expect(aip(await client().post(`/iam/v2beta1/terms/${org}`, { documentIds: ['ok', ' '] })).byType.BadRequest.fieldViolations[0].field).toBe('documentIds[1]');
    expect((await client().get(`/iam/v2beta1/terms/${org}`, { order_by: 'label' })).status).toBe(400);
    expect((await client().post(`/iam/v2beta1/terms/${org}/0123456789abcdef`, { documentIds: ['x'] })).status).toBe(404);
  });
}, { modes: ALL_MODES });
