/**
 * v1's WhoAmI read as a caller and its grants (policy/v1-grants.ts): both shapes of a capability entry, v1's
 * names as the contract's, what it cannot read refused; and every way v1 can fail to answer refuses the call.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, deadlineExceeded, unavailable } from '../../src/aip/errors.ts';
import { readWhoAmI, V1Grants, type V1Caller } from '../../src/policy/v1-grants.ts';

const code = (run: () => unknown) => Promise.resolve().then(run).then(() => 0, (error: ApiError) => error.code);

describe("v1's WhoAmI", () => {
  it("grants a role's capabilities, or the entry's own when no known role matches, as the contract's names", () => {
    const { caller, grants } = readWhoAmI({
      subject: 'org/me', issuer: 'https://issuer.example', email: 'me@x.example', profile: { givenName: 'Me', familyName: 'Self' },
      capabilities: [
        { group: { id: 'org' }, role: { name: 'viewer', capabilities: ['registry.overlays.list', 'groups.list'] } },
        { group: { id: 'org/team' }, role: null, capabilities: ['registry.overlays.edit', 'no.such.capability'] },
        { group: { id: 'org/team' }, role: { capabilities: ['repo.list'] } },
        { role: { capabilities: ['groups.delete'] } },
        'garbage',
      ],
    });
    expect(caller).toMatchObject({ subject: 'org/me', issuer: 'https://issuer.example', verified: true, claims: { given_name: 'Me', family_name: 'Self', email: 'me@x.example' } });
    expect(Object.fromEntries([...grants].map(([group, held]) => [group, [...held].sort()]))).toEqual({
      org: ['CAP_IAM_GROUPS_LIST', 'CAP_REGISTRY_OVERLAYS_LIST'],
      'org/team': ['CAP_REGISTRY_OVERLAYS_EDIT', 'CAP_REPO_LIST'],
    });
  });

  it('refuses an answer that is no WhoAmI (UNAVAILABLE) and one naming no subject (UNAUTHENTICATED)', async () => {
    expect(await code(() => readWhoAmI([]))).toBe(14);
    expect(await code(() => readWhoAmI({ subject: 'me', capabilities: {} }))).toBe(14);
    expect(await code(() => readWhoAmI({ subject: ' ', capabilities: [] }))).toBe(16);
    expect(await code(() => readWhoAmI({ capabilities: [] }))).toBe(16);
  });
});

describe('asking v1', () => {
  const failing = (error: unknown): V1Caller => ({ call: () => Promise.reject(error) });

  it('refuses when v1 does not answer: 401 UNAUTHENTICATED, 403 and 404 PERMISSION_DENIED, anything else UNAVAILABLE', async () => {
    const cases: Array<[unknown, number]> = [
      [new ApiError(16, 'bad token'), 16],
      [new ApiError(7, 'no'), 7],
      [new ApiError(5, 'Not Found'), 7],
      [unavailable('down'), 14],
      [new ApiError(13, 'internal'), 14],
      [deadlineExceeded('the v1 backend did not answer within 10 ms'), 14],
      [new Error('socket'), 14],
    ];
    for (const [error, expected] of cases) expect(await code(() => new V1Grants(failing(error), 1000).verify('Bearer t'))).toBe(expected);
  });

  it("keeps an answer per token for the lifetime, never a failure, and gives each caller v1's grants for it", async () => {
    const asked: string[] = [];
    let fail = true;
    const v1: V1Caller = {
      call: async (call) => {
        asked.push(call.authorization);
        if (fail) throw unavailable('down');
        return { subject: call.authorization.slice(7), capabilities: [{ group: { id: 'org' }, role: { capabilities: ['groups.list'] } }] } as never;
      },
    };
    const grants = new V1Grants(v1, 60_000);
    expect(await code(() => grants.verify('Bearer a'))).toBe(14);
    fail = false;
    const a = await grants.verify('Bearer a');
    expect(await grants.verify('Bearer a')).toBe(a);
    await grants.verify('Bearer b');
    expect(asked).toEqual(['Bearer a', 'Bearer a', 'Bearer b']);
    expect([...(await grants.of(a)).get('org')!]).toEqual(['CAP_IAM_GROUPS_LIST']);
    // A caller this source did not name holds nothing.
    expect(await code(() => grants.of({ ...a }))).toBe(7);
    grants.forget();
    await grants.verify('Bearer a');
    expect(asked).toHaveLength(4);
  });
});
