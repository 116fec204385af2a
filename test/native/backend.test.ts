/**
 * NativeBackend against a real in-memory store, where the store itself is the
 * witness: secrets kept but never served, seeds idempotent and refreshed,
 * output-only values assigned by the service, batches all or nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PageTokenCodec, pageTokenKey } from '../../src/aip/page-token.ts';
import { defineResource } from '../../src/contract/define.ts';
import type { ResourceMapping } from '../../src/vocabulary/resource.ts';
import { MappingRegistry } from '../../src/port/registry.ts';
import { NativeBackend } from '../../src/native/native-backend.ts';
import { identify, requestContext, type RequestContext } from '../../src/request/context.ts';
import { unverifiedCaller } from '../../src/policy/unverified-claims.ts';
import { OperationRunner } from '../../src/operation/execute.ts';
import type { RawQuery } from '../../src/aip/list-request.ts';
import type { Json } from '../../src/vocabulary/json.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { MAPPINGS } from '../../mappings/index.ts';
import { contract } from '../../src/contract/registry.ts';

const ctx = requestContext({ authorization: 'Bearer t', requestId: 'test', budgetMs: 60_000 });
let store: Store;
let backend: NativeBackend;
/** The backend behind the operation runner, called the way the transports call it. */
let api: ReturnType<typeof operations>;

function operations(runner: OperationRunner) {
  return {
    list: (mapping: ResourceMapping, query: RawQuery, c: RequestContext) => runner.execute({ kind: 'list', mapping, query }, c),
    get: (mapping: ResourceMapping, uid: string, c: RequestContext) => runner.execute({ kind: 'get', mapping, uid }, c),
    create: (mapping: ResourceMapping, parent: string, body: Json, c: RequestContext) => runner.execute({ kind: 'create', mapping, parent, body }, c),
    update: (mapping: ResourceMapping, uid: string, body: Json, mask: string | undefined, c: RequestContext) =>
      runner.execute({ kind: 'update', mapping, uid, body, mask }, c),
    batchCreate: (mapping: ResourceMapping, body: Json, c: RequestContext) => runner.execute({ kind: 'batchCreate', mapping, body }, c),
  };
}
const registry = new MappingRegistry(MAPPINGS);
const mapping = (name: string) => registry.get(name);

beforeEach(async () => {
  store = await openStore(':memory:');
  const tokens = new PageTokenCodec(pageTokenKey('a-test-key-of-16+'));
  backend = new NativeBackend({ store, registry });
  api = operations(new OperationRunner(backend, tokens));
  await backend.seed();
});
afterEach(() => store.close());

async function org(): Promise<string> {
  return (await api.create(mapping('groups'), '', { name: 'org' }, ctx)).uid as string;
}

describe('secrets', () => {
  it('are stored, never served, kept when sent empty, cleared only by a mask naming them', async () => {
    const parent = await org();
    const viewer = (await api.list(mapping('roles'), { name: 'viewer' }, ctx) as any).roles[0].uid;
    const idp = await api.create(mapping('identityProviders'), parent, {
      name: 'sso', defaultRole: viewer, oidc: { issuer: 'https://i', clientId: 'c', clientSecret: 'hunter2' },
    }, ctx);
    const secret = async () => ((await store.resources.get('identityProviders', idp.uid as string))!.body as any).oidc.clientSecret;
    expect(JSON.stringify(idp)).not.toContain('hunter2');
    expect(await secret()).toBe('hunter2');

    await api.update(mapping('identityProviders'), idp.uid as string, { oidc: { issuer: 'https://j', clientId: 'c' } }, 'oidc', ctx);
    expect(await secret()).toBe('hunter2');
    await api.update(mapping('identityProviders'), idp.uid as string, { oidc: { clientSecret: '' } }, 'oidc.client_secret', ctx);
    expect(await secret()).toBe('');
  });
});

describe('seed rows', () => {
  it('are inserted once, however often seeding runs, and refreshed when their data changes', async () => {
    await backend.seed();
    const roots = await api.list(mapping('roles'), { 'uidp.in_root': 'true' }, ctx) as any;
    expect(roots.totalCount).toBe('3');
    const viewer = roots.roles.find((r: any) => r.name === 'viewer');

    // Someone edits the stored row behind the gateway's back: the next start puts the seed data back, keeping createTime.
    const row = (await store.resources.get('roles', viewer.uid))!;
    await store.resources.replace('roles', viewer.uid, { ...row.body, description: 'tampered' }, '2031-01-01T00:00:00.000Z');
    await backend.seed();
    const after = await api.get(mapping('roles'), viewer.uid, ctx);
    expect(after.description).toBe(viewer.description);
    expect(after.createTime).toBe(viewer.createTime);
  });

  it('seeds any mapping that declares rows, with zero values filled', async () => {
    const pets: ResourceMapping = defineResource({
      name: 'pets', resourceType: 'test/Pet', service: 'iam', operations: ['get'],
      v1: { collection: 'pets', idParam: 'id' },
      fields: { uid: { outputOnly: true }, name: {}, legs: { type: 'int' } },
      filters: {}, orderBy: { fields: ['uid'] },
      native: { seed: [{ uid: 'f'.repeat(40), body: { name: 'rex' } }] },
    });
    const own = new NativeBackend({ store, registry: new MappingRegistry([pets]) });
    await own.seed();
    const served = operations(new OperationRunner(own, new PageTokenCodec(pageTokenKey('a-test-key-of-16+'))));
    expect(await served.get(pets, 'f'.repeat(40), ctx)).toEqual({ uid: 'f'.repeat(40), name: 'rex', legs: 0 });
  });
});

describe('creates', () => {
  it('assign uid and times themselves, ignoring forged output-only values', async () => {
    const parent = await org();
    const group = await api.create(mapping('groups'), parent, { name: 'g', uid: 'forged', createTime: '2000-01-01T00:00:00Z', status: 'ORG_STATUS_READY' }, ctx);
    expect(group.uid).toMatch(new RegExp(`^${parent}/[0-9a-f]{16}$`));
    expect(group.createTime).not.toBe('2000-01-01T00:00:00.000Z');
    expect(group.status).toBe('ORG_STATUS_UNSPECIFIED');
    const row = (await store.resources.get('groups', group.uid as string))!;
    expect(row).toMatchObject({ parent, createTime: group.createTime, updateTime: group.createTime });
  });

  it('an association takes its group\'s uid, so a second one for the group is ALREADY_EXISTS', async () => {
    const parent = await org();
    const first = await api.create(mapping('accountAssociations'), parent, { name: 'a', amazon: { account: '1' } }, ctx);
    expect(first.uid).toBe(parent);
    expect((await store.resources.get('accountAssociations', parent))!.parent).toBe('');
    await expect(api.create(mapping('accountAssociations'), parent, { name: 'b', amazon: { account: '2' } }, ctx)).rejects.toMatchObject({ code: 6 });
  });

  it('a batch with one bad request leaves nothing behind', async () => {
    const parent = await org();
    const identity = await api.create(mapping('identities'), parent, { name: 'bot', claimMatch: { issuer: 'https://i', subject: 's' } }, ctx);
    const viewer = (await api.list(mapping('roles'), { name: 'viewer' }, ctx) as any).roles[0].uid;
    await expect(api.batchCreate(mapping('roleBindings'), {
      parent, roleUid: viewer, requests: [{ roleBinding: { identityUid: identity.uid } }, { roleBinding: { identityUid: `${parent}/0123456789abcdef` } }],
    }, ctx)).rejects.toMatchObject({ code: 3 });
    expect((await store.resources.list({ kind: 'roleBindings', filters: [], order: [{ field: 'uid', desc: false }], skip: 0, limit: 10 })).total).toBe(0);
  });
});

describe('identity metadata', () => {
  it("is kept under the caller's identity and deleted with it", async () => {
    const parent = await org();
    const identity = (await api.create(mapping('identities'), parent, { name: 'ada', claimMatch: { issuer: 'https://i', subject: 'ada' } }, ctx)).uid as string;
    const claims = Buffer.from(JSON.stringify({ sub: identity })).toString('base64url');
    const caller = requestContext({ authorization: `Bearer e30.${claims}.c2ln`, requestId: 'test', budgetMs: 60_000 });
    // What the policy step reads of the caller where no issuer is configured (policy/guard.ts).
    identify(caller, unverifiedCaller(caller.authorization));
    const runner = new OperationRunner(backend, new PageTokenCodec(pageTokenKey('a-test-key-of-16+')));
    const custom = mapping('identities').methods?.custom?.UpdateIdentityMetadata;
    expect(custom).toBeDefined();
    await runner.execute({ kind: 'custom', mapping: mapping('identities'), method: contract.getService('chainguard.platform.iam.v2beta1.IdentitiesService')!.methods.find((m) => m.name === 'UpdateIdentityMetadata')!, custom: custom!, request: { identityMetadata: { company: 'c' } } }, caller);
    expect((await store.resources.get('identityMetadata', identity))?.body).toMatchObject({ company: 'c' });
    await runner.execute({ kind: 'delete', mapping: mapping('identities'), uid: identity }, ctx);
    expect(await store.resources.get('identityMetadata', identity)).toBeUndefined();
  });
});
