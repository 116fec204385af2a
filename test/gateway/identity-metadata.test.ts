/**
 * UpdateIdentityMetadata: the caller's own profile, named by the caller's
 * token alone, kept per identity (the token's `sub`) in the store in every
 * mode: v1 has no identity metadata, so translate mode keeps it in the store
 * beside v1's identities (the identity itself must exist in v1).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { jwt } from '../support/jwt.ts';
import { describeModes } from '../support/modes.ts';
import { aip } from '../support/stack.ts';

const IDENTITIES = 'chainguard.platform.iam.v2beta1.IdentitiesService';
const ROUTE = '/iam/v2beta1/identities:updateIdentityMetadata';

describeModes('identity metadata', (stack, mode) => {
  let grpc: GrpcClient;
  let identity: string;
  let bearer: string;
  const client = () => stack().client;
  const patchAs = (authorization: string | null, body: object) => client().call('PATCH', ROUTE, { body, authorization });
  beforeAll(async () => {
    grpc = new GrpcClient(stack().url);
    const org = (await client().post('/iam/v2beta1/groups', { name: 'metadata-org' })).body.uid;
    identity = (await client().post(`/iam/v2beta1/identities/${org}`, {
      name: 'ada', claimMatch: { issuer: 'https://issuer.example', subject: 'ada' },
    })).body.uid;
    bearer = `Bearer ${jwt({ iss: 'https://issuer.example', sub: identity, given_name: 'Ada', family_name: 'Lovelace' })}`;
  });
  afterAll(() => grpc?.close());

  it("writes the caller's own profile: uid and name from its identity, given and family names from its token", async () => {
    const reply = await patchAs(bearer, { identityMetadata: { company: 'Analytical Engines', updatesOptIn: true, utmSource: 'docs' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      uid: identity, name: 'ada', givenName: 'Ada', familyName: 'Lovelace',
      company: 'Analytical Engines', updatesOptIn: true, utmSource: 'docs', product: '',
    });
  });

  it('keeps what a later call leaves out, and a mask clears what it names but the body omits (gRPC)', async () => {
    const kept = await grpc.call(IDENTITIES, 'UpdateIdentityMetadata', { identityMetadata: { jobTitle: 'engineer' } }, { authorization: bearer });
    expect(kept).toMatchObject({ company: 'Analytical Engines', jobTitle: 'engineer', updatesOptIn: true, utmSource: 'docs' });
    const masked = await grpc.call(IDENTITIES, 'UpdateIdentityMetadata', {
      identityMetadata: { product: 'registry', company: 'ignored' }, updateMask: { paths: ['product', 'utm_source'] },
    }, { authorization: bearer });
    expect(masked).toMatchObject({ product: 'registry', utmSource: '', company: 'Analytical Engines', jobTitle: 'engineer' });
  });

  it('takes hubspotUtk for the one call and never keeps it; output-only fields sent are ignored', async () => {
    const once = await patchAs(bearer, { identityMetadata: { hubspotUtk: 'utk-1', name: 'not-mine', uid: 'x' } });
    expect(once.status).toBe(200);
    expect(once.body).toMatchObject({ hubspotUtk: 'utk-1', name: 'ada', uid: identity });
    const later = await patchAs(bearer, { identityMetadata: { selfServe: true } });
    expect(later.body).toMatchObject({ hubspotUtk: '', selfServe: true, product: 'registry' });
  });

  it('refuses a caller it cannot name (UNAUTHENTICATED), an unregistered one (NOT_FOUND) and an unknown mask path', async () => {
    const anonymous = await patchAs(null, { identityMetadata: { company: 'x' } });
    expect(anonymous.status).toBe(401);
    expect(aip(anonymous).code).toBe(16);
    // Translate mode: v1 names the caller; the emulator's demo caller (a token naming no identity) is no registered identity.
    expect((await patchAs('Bearer not-a-jwt', { identityMetadata: {} })).status).toBe(mode.startsWith('translate') ? 404 : 401);
    expect((await patchAs(`Bearer ${jwt({ iss: 'x' })}`, { identityMetadata: {} })).status).toBe(401);
    const stranger = `Bearer ${jwt({ sub: `${identity.split('/')[0]}/0123456789abcdef` })}`;
    expect((await rejected(grpc.call(IDENTITIES, 'UpdateIdentityMetadata', { identityMetadata: { company: 'x' } }, { authorization: stranger }))).code).toBe(5);
    const unknown = await patchAs(bearer, { identityMetadata: { company: 'x' }, updateMask: 'companyName' });
    expect(unknown.status).toBe(400);
    expect(aip(unknown).byType.BadRequest.fieldViolations[0].field).toBe('update_mask');
  });

  it("is NOT_FOUND once the caller's identity is deleted (its profile goes with it: test/native/backend)", async () => {
    expect((await client().delete(`/iam/v2beta1/identities/${identity}`)).status).toBe(200);
    expect((await patchAs(bearer, { identityMetadata: { company: 'x' } })).status).toBe(404);
  });
}, { modes: ['translate', 'translate-pg', 'native', 'native-pg'] });
