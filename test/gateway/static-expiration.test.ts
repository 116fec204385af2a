/**
 * How far ahead a static identity's keys may expire: v2 documents at most 365
 * days; v1 holds them to 30. Each mode refuses past its own limit with an
 * INVALID_ARGUMENT that names `staticKeys.expirationTime` and says the limit,
 * on create and on update, over REST and gRPC.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { ALL_MODES, describeModes } from '../support/modes.ts';
import { aip } from '../support/stack.ts';

const IDENTITIES = 'chainguard.platform.iam.v2beta1.IdentitiesService';
const DAY = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();
const keys = (expirationTime: string) => ({ issuer: 'https://issuer.example', subject: 'bot', issuerKeys: '{"keys":[]}', expirationTime });

describeModes('static keys expiration', (stack, mode) => {
  let grpc: GrpcClient;
  let org = '';
  const client = () => stack().client;
  /** v1's limit over v1, v2's in native mode. */
  const limit = mode === 'translate' ? 30 : 365;
  beforeAll(async () => {
    grpc = new GrpcClient(stack().url);
    org = (await client().post('/iam/v2beta1/groups', { name: 'expiry-org' })).body.uid;
  });
  afterAll(() => grpc?.close());

  it(`takes an expiration just inside the limit`, async () => {
    const made = await client().post(`/iam/v2beta1/identities/${org}`, { name: 'inside', staticKeys: keys(inDays(limit - 1)) });
    expect(made.status).toBe(200);
  });

  it(`refuses one past the limit on create, saying the limit, over REST and gRPC`, async () => {
    const refused = await client().post(`/iam/v2beta1/identities/${org}`, { name: 'outside', staticKeys: keys(inDays(limit + 1)) });
    expect(refused.status).toBe(400);
    const [violation] = aip(refused).byType.BadRequest.fieldViolations;
    expect(violation.field).toBe('staticKeys.expirationTime');
    expect(violation.description).toContain(`${limit} days`);
    const overGrpc = await rejected(grpc.call(IDENTITIES, 'CreateIdentity', {
      parent: org, identity: { name: 'outside', staticKeys: { ...keys(''), expirationTime: { seconds: String(Math.floor(Date.now() / 1000) + (limit + 1) * 86_400) } } },
    }));
    expect(overGrpc.code).toBe(3);
    expect(JSON.stringify(overGrpc.details)).toContain(`${limit} days`);
  });

  it('refuses one past the limit on update', async () => {
    const uid = (await client().post(`/iam/v2beta1/identities/${org}`, { name: 'moved', staticKeys: keys(inDays(1)) })).body.uid;
    const refused = await client().patch(`/iam/v2beta1/identities/${uid}`, { staticKeys: { expirationTime: inDays(limit + 1) } }, { update_mask: 'static_keys.expiration_time' });
    expect(refused.status).toBe(400);
    expect(aip(refused).byType.BadRequest.fieldViolations[0]).toMatchObject({ field: 'staticKeys.expirationTime' });
    expect(aip(refused).byType.BadRequest.fieldViolations[0].description).toContain(`${limit} days`);
  });
}, { modes: ALL_MODES });
