/**
 * Equivalence by construction, checked: for every served RPC, the answer over
 * gRPC and the answer over REST to the same operation are the same message.
 * Both are read as protobuf (the REST body strictly, through the contract's
 * JSON mapping) and compared field by field. Page tokens are sealed with a
 * fresh nonce each time, so they are compared for presence only. Writes are
 * compared against a read of what they wrote, over the other protocol.
 */
import { equals, fromJson, type DescMessage, type DescMethod, type JsonValue, type Message } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiServices, contract } from '../../src/contract/registry.ts';
import { describeModes } from '../support/modes.ts';
import { TOKEN } from '../support/stack.ts';

const method = (service: string, name: string): DescMethod => {
  const found = apiServices().find((s) => s.typeName === service)?.methods.find((m) => m.name === name);
  if (!found) throw new Error(`no ${service}.${name}`);
  return found;
};
const IAM = 'chainguard.platform.iam.v2beta1';
const REGISTRY = 'chainguard.platform.registry.v2beta1';
const VULNS = 'chainguard.platform.vulnerabilities.v2beta1';

/** `a` and `b` as one message, page tokens compared for presence. */
function expectSameMessage(schema: DescMessage, grpcAnswer: Message, restBody: unknown): void {
  const rest = fromJson(schema, restBody as JsonValue, { registry: contract, ignoreUnknownFields: false });
  const tokens = [grpcAnswer, rest].map((m) => (m as Record<string, unknown>).nextPageToken);
  expect(Boolean(tokens[0])).toBe(Boolean(tokens[1]));
  for (const m of [grpcAnswer, rest]) if ('nextPageToken' in m) (m as Record<string, unknown>).nextPageToken = '';
  if (!equals(schema, grpcAnswer, rest)) {
    expect(JSON.stringify(grpcAnswer, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).toBe(JSON.stringify(rest, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
  }
}

describeModes('gRPC and REST answer the same message', (stack) => {
  const ids: Record<string, string> = {};
  let call: (service: string, name: string, request: JsonValue) => Promise<Message>;
  const rest = () => stack().client;

  beforeAll(async () => {
    const transport = createGrpcTransport({
      baseUrl: stack().url,
      interceptors: [(next) => (req) => { req.header.set('authorization', TOKEN); return next(req); }],
    });
    const clients = new Map<string, Record<string, (request: Message) => Promise<Message>>>();
    call = async (service, name, request) => {
      const m = method(service, name);
      if (!clients.has(service)) clients.set(service, createClient(m.parent, transport) as unknown as Record<string, (request: Message) => Promise<Message>>);
      return clients.get(service)![m.localName]!(fromJson(m.input, request, { registry: contract }));
    };

    const post = async (path: string, body: unknown) => {
      const reply = await rest().post(path, body);
      if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.text}`);
      return reply.body.uid as string;
    };
    ids.org = await post('/iam/v2beta1/groups', { name: 'equivalence' });
    ids.group = await post(`/iam/v2beta1/groups/${ids.org}`, { name: 'eq-group', description: 'd' });
    ids.identity = await post(`/iam/v2beta1/identities/${ids.group}`, { name: 'eq-bot', claimMatch: { issuer: 'https://i.example', subject: 's' } });
    ids.role = await post(`/iam/v2beta1/roles/${ids.org}`, { name: 'eq-role', capabilities: ['CAP_IAM_GROUPS_LIST', 'CAP_REPO_LIST'] });
    ids.binding = await post(`/iam/v2beta1/roleBindings/${ids.group}`, { identityUid: ids.identity, roleUid: ids.role });
    ids.idp = await post(`/iam/v2beta1/identityProviders/${ids.org}`, {
      name: 'eq-sso', defaultRole: ids.role, oidc: { issuer: 'https://sso.example', clientId: 'c', clientSecret: 'never-shown', additionalScopes: ['email'] },
    });
    ids.association = await post(`/iam/v2beta1/accountAssociations/${ids.group}`, { name: 'eq-cloud', amazon: { account: '123456789012' } });
    ids.invite = await post(`/iam/v2beta1/groupInvites/${ids.org}`, { roleUid: ids.role, ttl: '3600s', email: 'eq@example.com' });
    ids.repo = await stack().fixtures.repo(ids.org, { name: 'eq-repo', catalogTier: 'CATALOG_TIER_BASE' });
    ids.tag = await stack().fixtures.tag(ids.repo, { name: 'latest', digest: `sha256:${'a'.repeat(64)}` });
    ids.advisory = await stack().fixtures.advisory(ids.org, {
      author: 'alice', artifactType: 'apk', artifactName: 'eq-artifact', artifactArchitecture: 'x86_64',
      componentName: 'c', componentType: 'go-module', componentLocation: '/x', aliases: ['CVE-2026-1'],
      events: [{ author: 'bob', reviewState: 'REVIEW_STATE_APPROVED', fixed: { fixedVersion: '1.2.3' } }],
    });
  });

  const reads: [service: string, get: string, list: string, path: string, key: string][] = [
    [`${IAM}.GroupsService`, 'GetGroup', 'ListGroups', '/iam/v2beta1/groups', 'group'],
    [`${IAM}.IdentitiesService`, 'GetIdentity', 'ListIdentities', '/iam/v2beta1/identities', 'identity'],
    [`${IAM}.RolesService`, 'GetRole', 'ListRoles', '/iam/v2beta1/roles', 'role'],
    [`${IAM}.RoleBindingsService`, 'GetRoleBinding', 'ListRoleBindings', '/iam/v2beta1/roleBindings', 'binding'],
    [`${IAM}.IdentityProvidersService`, 'GetIdentityProvider', 'ListIdentityProviders', '/iam/v2beta1/identityProviders', 'idp'],
    [`${IAM}.AccountAssociationsService`, 'GetAccountAssociation', 'ListAccountAssociations', '/iam/v2beta1/accountAssociations', 'association'],
    [`${IAM}.GroupInvitesService`, 'GetGroupInvite', 'ListGroupInvites', '/iam/v2beta1/groupInvites', 'invite'],
    [`${REGISTRY}.ReposService`, 'GetRepo', 'ListRepos', '/registry/v2beta1/repos', 'repo'],
    [`${REGISTRY}.TagsService`, 'GetTag', 'ListTags', '/registry/v2beta1/tags', 'tag'],
    [`${VULNS}.AdvisoriesService`, 'GetAdvisory', 'ListAdvisories', '/vulnerabilities/v2beta1/advisories', 'advisory'],
  ];

  for (const [service, get, list, path, key] of reads) {
    it(`${get} and ${list}`, async () => {
      const uid = ids[key]!;
      expectSameMessage(method(service, get).output, await call(service, get, { uid }), (await rest().get(`${path}/${uid}`)).body);
      const query = { uidp: { descendantsOf: ids.org! }, pageSize: 1 };
      const restQuery = { 'uidp.descendants_of': ids.org, page_size: 1 };
      expectSameMessage(method(service, list).output, await call(service, list, query), (await rest().get(path, restQuery)).body);
    });
  }

  it('LookupIdentity', async () => {
    const m = method(`${IAM}.IdentitiesService`, 'LookupIdentity');
    for (const who of [{ issuer: 'https://i.example', subject: 's' }, { issuer: 'https://nobody.example', subject: 'x' }]) {
      expectSameMessage(m.output, await call(m.parent.typeName, m.name, who), (await rest().get('/iam/v2beta1/identities:lookupIdentity', who)).body);
    }
  });

  let written = 0;
  const writes: [service: string, resource: string, path: string, parentKey: string, body: () => JsonValue, change: JsonValue][] = [
    [`${IAM}.GroupsService`, 'Group', '/iam/v2beta1/groups', 'org', () => ({ name: 'eq-written' }), { description: 'changed' }],
    [`${IAM}.IdentitiesService`, 'Identity', '/iam/v2beta1/identities', 'group',
      () => ({ name: 'eq-written', claimMatch: { issuer: 'https://w.example', subject: 'w' } }), { description: 'changed' }],
    [`${IAM}.RolesService`, 'Role', '/iam/v2beta1/roles', 'org', () => ({ name: 'eq-written', capabilities: ['CAP_IAM_GROUPS_LIST'] }), { description: 'changed' }],
    [`${IAM}.RoleBindingsService`, 'RoleBinding', '/iam/v2beta1/roleBindings', 'group', () => ({ identityUid: ids.identity!, roleUid: ids.role! }), { roleUid: '' }],
    [`${IAM}.IdentityProvidersService`, 'IdentityProvider', '/iam/v2beta1/identityProviders', 'org',
      () => ({ name: 'eq-written', defaultRole: ids.role!, oidc: { issuer: 'https://w.example', clientId: 'w', clientSecret: 's' } }), { description: 'changed' }],
    // A repo name names one repo in its group, so each create takes a new one.
    [`${REGISTRY}.ReposService`, 'Repo', '/registry/v2beta1/repos', 'org',
      () => ({ name: `eq-written-${++written}`, catalogTier: 'CATALOG_TIER_AI', customOverlay: { accounts: { users: [{ username: 'u', uid: 7 }] } } }), { description: 'changed' }],
  ];

  for (const [service, resource, path, parentKey, body, change] of writes) {
    it(`Create${resource}, Update${resource} and Delete${resource} answer what a read over the other protocol shows`, async () => {
      const field = resource.charAt(0).toLowerCase() + resource.slice(1);
      const output = method(service, `Get${resource}`).output;
      // gRPC writes, REST reads.
      const created = await call(service, `Create${resource}`, { parent: ids[parentKey]!, [field]: body() }) as Message & { uid: string };
      expectSameMessage(output, created, (await rest().get(`${path}/${created.uid}`)).body);
      const patch = field === 'roleBinding' ? { roleUid: ids.role! } : change;
      const updated = await call(service, `Update${resource}`, { [field]: { ...(patch as object), uid: created.uid } }) as Message;
      expectSameMessage(output, updated, (await rest().get(`${path}/${created.uid}`)).body);
      // REST writes, gRPC reads.
      const made = await rest().post(`${path}/${ids[parentKey]}`, field === 'group' ? { name: 'eq-written-2' } : body());
      expect(made.status).toBe(200);
      expectSameMessage(output, await call(service, `Get${resource}`, { uid: made.body.uid }), made.body);
      // Delete answers Empty on both.
      const empty = method(service, `Delete${resource}`).output;
      expectSameMessage(empty, await call(service, `Delete${resource}`, { uid: created.uid }), (await rest().delete(`${path}/${made.body.uid}`)).body);
    });
  }

  it('CreateAccountAssociation, UpdateAccountAssociation, DeleteAccountAssociation', async () => {
    const service = `${IAM}.AccountAssociationsService`;
    const output = method(service, 'GetAccountAssociation').output;
    const target = (await rest().post(`/iam/v2beta1/groups/${ids.org}`, { name: 'eq-aa' })).body.uid as string;
    const created = await call(service, 'CreateAccountAssociation', { parent: target, accountAssociation: { name: 'aa', amazon: { account: '1' } } });
    expectSameMessage(output, created, (await rest().get(`/iam/v2beta1/accountAssociations/${target}`)).body);
    const updated = await call(service, 'UpdateAccountAssociation', { accountAssociation: { uid: target, description: 'changed' } });
    expectSameMessage(output, updated, (await rest().get(`/iam/v2beta1/accountAssociations/${target}`)).body);
    expectSameMessage(method(service, 'DeleteAccountAssociation').output, await call(service, 'DeleteAccountAssociation', { uid: target }), {});
  });

  it('CreateGroupInvite and DeleteGroupInvite (the code comes only with the create answer, on both)', async () => {
    const service = `${IAM}.GroupInvitesService`;
    const created = await call(service, 'CreateGroupInvite', { parent: ids.org!, groupInvite: { roleUid: ids.role!, ttl: '60s' } }) as Message & { uid: string; code: string };
    expect(created.code).not.toBe('');
    const read = (await rest().get(`/iam/v2beta1/groupInvites/${created.uid}`)).body;
    expect(read.code).toBe('');
    expectSameMessage(method(service, 'GetGroupInvite').output, { ...created, code: '' } as Message, read);
    expectSameMessage(method(service, 'DeleteGroupInvite').output, await call(service, 'DeleteGroupInvite', { uid: created.uid }), {});
  });

  it('GetRepoReadme and UpdateRepoReadme', async () => {
    const service = `${REGISTRY}.ReposService`;
    const output = method(service, 'GetRepoReadme').output;
    const updated = await call(service, 'UpdateRepoReadme', { repoReadme: { uid: ids.repo!, content: '# eq' } });
    expectSameMessage(output, updated, (await rest().get(`/registry/v2beta1/repos/${ids.repo}/readme`)).body);
    const patched = await rest().patch(`/registry/v2beta1/repos/${ids.repo}/readme`, { content: '# rest' });
    expectSameMessage(output, await call(service, 'GetRepoReadme', { uid: ids.repo! }), patched.body);
  });

  it('CreateTag (twice: the upsert) and DeleteTag', async () => {
    const service = `${REGISTRY}.TagsService`;
    const output = method(service, 'GetTag').output;
    const created = await call(service, 'CreateTag', { parent: ids.repo!, tag: { name: 'eq', digest: `sha256:${'c'.repeat(64)}` } }) as Message & { uid: string };
    expectSameMessage(output, created, (await rest().get(`/registry/v2beta1/tags/${created.uid}`)).body);
    const replaced = await rest().post(`/registry/v2beta1/tags/${ids.repo}`, { name: 'eq', digest: `sha256:${'d'.repeat(64)}` });
    expect(replaced.body.uid).toBe(created.uid);
    expectSameMessage(output, await call(service, 'GetTag', { uid: created.uid }), replaced.body);
    expectSameMessage(method(service, 'DeleteTag').output, await call(service, 'DeleteTag', { uid: created.uid }), {});
  });

  it('BatchCreateRoleBindings', async () => {
    const service = `${IAM}.RoleBindingsService`;
    const batch = await call(service, 'BatchCreateRoleBindings', {
      parent: ids.group!, roleUid: ids.role!, requests: [{ roleBinding: { identityUid: ids.identity! } }],
    }) as Message & { roleBindings: { uid: string }[] };
    const uid = batch.roleBindings[0]!.uid;
    const output = method(service, 'BatchCreateRoleBindings').output;
    expectSameMessage(output, batch, { roleBindings: [(await rest().get(`/iam/v2beta1/roleBindings/${uid}`)).body] });
  });

  afterAll(() => {});
});
