/** Resource shapes over v1: renames, enums, hydration with bounded v1 calls, idempotent deletes, the GA prefix. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIMESTAMP_MS, aip, startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
let org: string;

beforeAll(async () => {
  stack = await startStack({ flags: ['--debug-headers'] });
  org = stack.emulator.state.createGroup(null, { name: 'shapes-org' }).id;
});
afterAll(() => stack.close());

describe('identities', () => {
  it('render every v2 field, renamed, with only the set relationship', async () => {
    const id = stack.emulator.state.createIdentity(org, {
      name: 'static-bot',
      description: 'static keys',
      static: { issuer: 'https://issuer.example', subject: 'bot', issuerKeys: '{"keys":[]}', expiration: new Date(Date.now() + 86_400_000).toISOString() },
    }).id;
    const { status, body } = await stack.client.get(`/iam/v2beta1/identities/${id}`);
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(
      ['company', 'createTime', 'description', 'email', 'emailUnverified', 'lastSeenTime', 'name', 'staticKeys', 'uid', 'updateTime'],
    );
    expect(body.staticKeys).toMatchObject({ issuer: 'https://issuer.example', subject: 'bot', issuerKeys: '{"keys":[]}' });
    expect(body.staticKeys.expirationTime).toMatch(TIMESTAMP_MS);
    expect(body.staticKeys).not.toHaveProperty('expiration');
    for (const key of ['createTime', 'updateTime', 'lastSeenTime']) expect(body[key]).toMatch(TIMESTAMP_MS);
    expect(body.email).toBe('');
  });

  it('create refuses zero or two relationships', async () => {
    const none = await stack.client.post(`/iam/v2beta1/identities/${org}`, { name: 'lonely' });
    expect(aip(none).byType.BadRequest.fieldViolations[0].description).toContain('exactly one');
    const two = await stack.client.post(`/iam/v2beta1/identities/${org}`, {
      name: 'greedy', claimMatch: { issuer: 'https://i', subject: 's' }, servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED',
    });
    expect(two.status).toBe(400);
  });

  it('create accepts proto (snake_case) field names', async () => {
    const { status, body } = await stack.client.post(`/iam/v2beta1/identities/${org}`, {
      name: 'snake-bot', claim_match: { issuer: 'https://i', subject_pattern: 'repo:.*' },
    });
    expect(status).toBe(200);
    expect(body.claimMatch).toEqual({ issuer: 'https://i', subjectPattern: 'repo:.*', claims: {}, claimPatterns: {} });
  });
});

describe('roles', () => {
  it('built-in roles are flat root uids with enum capabilities', async () => {
    const { body } = await stack.client.get('/iam/v2beta1/roles', { 'uidp.in_root': true, order_by: 'name' });
    expect(body.roles.map((r: any) => r.name)).toEqual(['editor', 'owner', 'viewer']);
    for (const role of body.roles) {
      expect(role.uid).toMatch(/^[0-9a-f]{40}$/);
      for (const cap of role.capabilities) expect(cap).toMatch(/^CAP_[A-Z0-9_]+$/);
    }
  });

  it('create translates capabilities to v1 names and back', async () => {
    const { status, body } = await stack.client.post(`/iam/v2beta1/roles/${org}`, {
      name: 'scim-admin', capabilities: ['CAP_IAM_SCIM_MANAGE', 'CAP_MANIFEST_METADATA_LIST'],
    });
    expect(status).toBe(200);
    expect(body.capabilities).toEqual(['CAP_IAM_SCIM_MANAGE', 'CAP_MANIFEST_METADATA_LIST']);
    expect(stack.emulator.state.listRoles({ id: body.uid })[0]!.capabilities).toEqual(['identity_providers.scim.manage', 'manifest.metadata.list']);
  });

  it('create requires at least one capability', async () => {
    const reply = await stack.client.post(`/iam/v2beta1/roles/${org}`, { name: 'empty', capabilities: [] });
    expect(aip(reply).byType.BadRequest.fieldViolations[0].field).toBe('capabilities');
  });
});

describe('role bindings', () => {
  let bindingOrg: string;
  const identities: string[] = [];

  beforeAll(() => {
    bindingOrg = stack.emulator.state.createGroup(null, { name: 'bindings-org' }).id;
    const { viewer } = stack.emulator.state.builtinRoles as Record<string, string>;
    for (let i = 0; i < 120; i++) {
      const identity = stack.emulator.state.createIdentity(bindingOrg, { name: `member-${i}`, description: `desc-${i}`, claimMatch: { issuer: 'https://i', subject: `s-${i}` } }).id;
      identities.push(identity);
      stack.emulator.state.createRoleBinding(bindingOrg, { identity, role: viewer! });
    }
  });

  it('hydrate a full page of 200 rows with a bounded number of v1 calls', async () => {
    const reply = await stack.client.get('/iam/v2beta1/roleBindings', { 'uidp.children_of': bindingOrg, page_size: 200 });
    expect(reply.status).toBe(200);
    expect(reply.body.roleBindings).toHaveLength(120);
    // One list of bindings, then identities in chunks of 50 ids: 1 + ceil(120 / 50) = 4, not 1 + 120.
    expect(Number(reply.headers.get('x-v2gw-v1-calls'))).toBe(4);
    for (const binding of reply.body.roleBindings) {
      const i = identities.indexOf(binding.identity.uid);
      expect(binding.identity).toMatchObject({ name: `member-${i}`, description: `desc-${i}`, subject: `s-${i}`, issuer: 'https://i' });
      expect(binding.role.name).toBe('viewer');
      expect(binding.group).toEqual({ uid: bindingOrg, name: 'bindings-org', description: '' });
    }
  });

  it('filter by identity and by role on the gateway', async () => {
    const { body } = await stack.client.get('/iam/v2beta1/roleBindings', { identity: identities[7] });
    expect(body.roleBindings).toHaveLength(1);
    expect(body.roleBindings[0].identity.name).toBe('member-7');
    const { editor } = stack.emulator.state.builtinRoles as Record<string, string>;
    expect((await stack.client.get('/iam/v2beta1/roleBindings', { 'uidp.children_of': bindingOrg, role: editor })).body.totalCount).toBe('0');
  });

  it('a page too costly to hydrate fails fast with RESOURCE_EXHAUSTED', async () => {
    const tight = await startStack({ flags: ['--max-fan-out', '2'] });
    try {
      const o = tight.emulator.state.createGroup(null, { name: 'o' }).id;
      const { viewer } = tight.emulator.state.builtinRoles as Record<string, string>;
      for (let i = 0; i < 101; i++) {
        const identity = tight.emulator.state.createIdentity(o, { name: `m-${i}`, claimMatch: { issuer: 'https://i', subject: `s${i}` } }).id;
        tight.emulator.state.createRoleBinding(o, { identity, role: viewer! });
      }
      const reply = await tight.client.get('/iam/v2beta1/roleBindings', { page_size: 200 });
      expect(reply.status).toBe(429);
      expect(aip(reply).code).toBe(8);
      expect((await tight.client.get('/iam/v2beta1/roleBindings', { page_size: 100 })).status).toBe(200);
    } finally {
      await tight.close();
    }
  });

  it('delete is idempotent', async () => {
    const identity = stack.emulator.state.createIdentity(org, { name: 'temp', claimMatch: { issuer: 'https://i', subject: 't' } }).id;
    const binding = stack.emulator.state.createRoleBinding(org, { identity, role: (stack.emulator.state.builtinRoles as Record<string, string>).viewer! }).id;
    expect((await stack.client.delete(`/iam/v2beta1/roleBindings/${binding}`)).status).toBe(200);
    const again = await stack.client.delete(`/iam/v2beta1/roleBindings/${binding}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({});
  });

  it('create with a missing identity fails with v1’s own error, not a crash', async () => {
    const reply = await stack.client.post(`/iam/v2beta1/roleBindings/${org}`, {
      identityUid: `${org}/0123456789abcdef`, roleUid: (stack.emulator.state.builtinRoles as Record<string, string>).viewer,
    });
    expect([400, 404]).toContain(reply.status);
    expect([3, 5]).toContain(aip(reply).code);
  });
});

describe('repos', () => {
  it('rename CatalogTier by name, keep sync_config snake_case, rename overlay accounts', async () => {
    const id = stack.emulator.state.createRepo(org, {
      name: 'app',
      catalogTier: 'COMMERCIAL',
      readme: '# hidden in v2',
      sync_config: { source: `${org}/0123456789abcdef`, expiration: '2030-01-01T00:00:00.123456Z' },
      customOverlay: { accounts: { runAs: 'app', users: [{ uid: 1000, userName: 'app', gid: 1000 }], groups: [{ gid: 1000, groupName: 'app', members: ['app'] }] } },
    }).id;
    const { status, body } = await stack.client.get(`/registry/v2beta1/repos/${id}`);
    expect(status).toBe(200);
    expect(body.catalogTier).toBe('CATALOG_TIER_COMMERCIAL');
    expect(body.sync_config).toMatchObject({ source: `${org}/0123456789abcdef`, expirationTime: '2030-01-01T00:00:00.123Z' });
    expect(body).not.toHaveProperty('syncConfig');
    expect(body).not.toHaveProperty('readme');
    // v1 keeps no update time: the one the gateway keeps (here, when it first saw the repo).
    expect(body.updateTime).toMatch(TIMESTAMP_MS);
    expect(body.customOverlay.accounts.users[0]).toMatchObject({ username: 'app', uid: 1000 });
    expect(body.customOverlay.accounts.groups[0]).toMatchObject({ groupname: 'app', members: ['app'] });
  });
});

describe('API versions', () => {
  it('the GA prefix /iam/v2 is served by the same table', async () => {
    const beta = await stack.client.get(`/iam/v2beta1/groups/${org}`);
    const ga = await stack.client.get(`/iam/v2/groups/${org}`);
    expect(ga.status).toBe(200);
    expect(ga.body).toEqual(beta.body);
  });
});
