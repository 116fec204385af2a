/**
 * The Groups service's email-domain flows (LookupGroup, CheckEligibility,
 * RequestGroupAccess) over REST and gRPC. Translate mode forwards them to v1
 * with the caller's token; native mode verifies no tokens, so it answers what
 * the real service answers a caller from no trusted provider.
 */
import { afterAll, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { jwt, trustedCaller } from '../support/jwt.ts';
import { describeModes } from '../support/modes.ts';

const GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService';
const ada = `Bearer ${trustedCaller('ada@domain.example')}`;
const untrusted = `Bearer ${jwt({ iss: 'https://issuer.invalid', sub: 'eve', email: 'eve@domain.example', email_verified: true })}`;

describeModes('email-domain group flows', (stack, mode) => {
  let grpc: GrpcClient;
  const rpc = (method: string, request: object, authorization: string) => {
    grpc ??= new GrpcClient(stack().url);
    return grpc.call(GROUPS, method, request, { authorization });
  };
  afterAll(() => grpc?.close());

  /** A verified organisation named after the domain: only v1 (or Chainguard staff) can verify one. */
  const verifiedOrg = async (): Promise<string> => {
    if (mode !== 'translate') return '0123456789abcdef0123456789abcdef01234567';
    const made = await fetch(`${stack().emulatorUrl}/iam/v1/groups`, {
      method: 'POST',
      headers: { authorization: 'Bearer staff', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'domain.example', verified: true }),
    });
    return ((await made.json()) as { id: string }).id;
  };
  let org: string;

  it('LookupGroup answers the verified organisation of the caller\'s domain, renamed to v2', async () => {
    org = await verifiedOrg();
    const rest = await stack().client.get('/iam/v2beta1/groups:lookupGroup', {}, { authorization: ada });
    if (mode === 'translate') {
      expect(rest.status).toBe(200);
      expect(rest.body.group).toMatchObject({ uid: org, name: 'domain.example', verified: true });
      expect(rest.body.group).not.toHaveProperty('id');
      const viaGrpc = await rpc('LookupGroup', {}, ada);
      expect(viaGrpc.group.uid).toBe(org);
    } else {
      expect(rest.status).toBe(404);
      expect((await rejected(rpc('LookupGroup', {}, ada))).code).toBe(5);
    }
  });

  it('LookupGroup collapses a caller from an untrusted provider into NOT_FOUND, on both protocols', async () => {
    const rest = await stack().client.get('/iam/v2beta1/groups:lookupGroup', {}, { authorization: untrusted });
    expect(rest.status).toBe(404);
    expect(rest.body.code).toBe(5);
    expect((await rejected(rpc('LookupGroup', {}, untrusted))).code).toBe(5);
  });

  it('CheckEligibility says whether the caller passes the gates', async () => {
    const trusted = await stack().client.get('/iam/v2beta1/groups:checkEligibility', {}, { authorization: ada });
    expect(trusted.status).toBe(200);
    expect(trusted.body).toEqual({ eligible: mode === 'translate' });
    expect(await rpc('CheckEligibility', {}, untrusted)).toEqual({ eligible: false });
  });

  it('RequestGroupAccess is sent once; a repeat is RESOURCE_EXHAUSTED; an empty uid is INVALID_ARGUMENT', async () => {
    const path = `/iam/v2beta1/groups/${org}:requestGroupAccess`;
    const first = await stack().client.post(path, {}, { authorization: ada });
    if (mode === 'translate') {
      expect(first.status).toBe(200);
      expect(first.body).toEqual({});
      const again = await rejected(rpc('RequestGroupAccess', { groupUid: org }, ada));
      expect(again.code).toBe(8);
    } else {
      expect(first.status).toBe(404);
    }
    const empty = await rejected(rpc('RequestGroupAccess', { groupUid: '' }, ada));
    expect(empty.code).toBe(3);
    expect(JSON.stringify(empty.details)).toContain('groupUid');
    const notAUidp = await stack().client.post('/iam/v2beta1/groups/nope:requestGroupAccess', {}, { authorization: ada });
    expect(notAUidp.status).toBe(404);
  });
});
