import { describe, it, expect } from 'vitest';
import { copyV2Path, validationScope } from '../../src/render/merge.ts';
import { getPath, type Json } from '../../src/vocabulary/json.ts';
import { readBody, readUpdate } from '../../src/render/request-body.ts';
import { renderV2 } from '../../src/translate/v1-row.ts';
import { toV1, v1WritePath, writeV1Path } from '../../src/translate/v1-body.ts';
import { invalidOn } from '../support/invalid-argument.ts';
import groups from '../../mappings/groups.ts';
import identities from '../../mappings/identities.ts';
import repos from '../../mappings/repos.ts';
import roleBindings from '../../mappings/role-bindings.ts';
import roles from '../../mappings/roles.ts';
import { MAPPINGS } from '../../mappings/index.ts';
import { MappingRegistry } from '../../src/port/registry.ts';
import { V1Backend } from '../../src/translate/v1-backend.ts';
import { RenderStage } from '../../src/render/render.ts';
import { requestContext } from '../../src/request/context.ts';
import type { V1Call, V1Client } from '../../src/v1/client.ts';

const ROOT = 'a'.repeat(40);
const GROUP = `${ROOT}/${'1'.repeat(16)}`;
const IDENTITY_UID = `${GROUP}/${'2'.repeat(16)}`;
const ROLE_UID = `${ROOT}/${'3'.repeat(16)}`;
const BINDING_UID = `${GROUP}/${'4'.repeat(16)}`;

const ID = identities.fields;

function claimMatchRow(): Json {
  return {
    id: IDENTITY_UID,
    name: 'ci-bot',
    description: 'CI',
    claimMatch: { issuer: 'https://token.actions.githubusercontent.com', subject: 'repo:org/app:ref:refs/heads/main', claims: { aud: 'x' } },
    createdAt: '2024-03-04T05:06:07.123456Z',
    updatedAt: '2024-03-05T05:06:07Z',
    lastSeen: '2024-03-06T00:00:00.5+01:00',
  };
}

describe('renderV2: identities', () => {
  it('renames id→uid, createdAt→createTime, updatedAt→updateTime, lastSeen→lastSeenTime with millisecond UTC times', () => {
    const out = renderV2(ID, claimMatchRow());
    expect(out.uid).toBe(IDENTITY_UID);
    expect(out.createTime).toBe('2024-03-04T05:06:07.123Z');
    expect(out.updateTime).toBe('2024-03-05T05:06:07.000Z');
    expect(out.lastSeenTime).toBe('2024-03-05T23:00:00.500Z');
    for (const v1Key of ['id', 'createdAt', 'updatedAt', 'lastSeen']) expect(v1Key in out).toBe(false);
  });

  it('renders the claimMatch member of the relationship oneof and omits the unset members', () => {
    const out = renderV2(ID, claimMatchRow());
    expect(out.claimMatch).toEqual({
      issuer: 'https://token.actions.githubusercontent.com',
      subject: 'repo:org/app:ref:refs/heads/main',
      claims: { aud: 'x' },
      claimPatterns: {},
    });
    // nested oneofs: issuerPattern/subjectPattern/audience/audiencePattern are unset → absent
    expect(Object.keys(out.claimMatch as Json).sort()).toEqual(['claimPatterns', 'claims', 'issuer', 'subject']);
    for (const member of ['staticKeys', 'awsIdentity', 'servicePrincipal']) expect(member in out).toBe(false);
  });

  it('renders every non-oneof field, with zero values where v1 has nothing', () => {
    const out = renderV2(ID, { id: IDENTITY_UID, servicePrincipal: 'INGESTER' });
    expect(out).toMatchObject({ uid: IDENTITY_UID, name: '', description: '', email: '', company: '', createTime: null, updateTime: null, lastSeenTime: null });
    expect('emailUnverified' in out).toBe(true);
  });

  it('renames static→staticKeys and static.expiration→staticKeys.expirationTime', () => {
    const out = renderV2(ID, {
      id: IDENTITY_UID,
      static: { issuer: 'https://iss', subject: 'sub', issuerKeys: '{"keys":[]}', expiration: '2025-01-01T00:00:00.987654321Z' },
    });
    expect(out.staticKeys).toEqual({
      issuer: 'https://iss', subject: 'sub', issuerKeys: '{"keys":[]}', expirationTime: '2025-01-01T00:00:00.987Z', audiences: [],
    });
    expect('static' in out).toBe(false);
    expect('claimMatch' in out).toBe(false);
  });

  it('renders an absent static expiration as null', () => {
    const out = renderV2(ID, { id: IDENTITY_UID, static: { issuer: 'i', subject: 's', issuerKeys: 'k', audiences: ['a'] } });
    expect(out.staticKeys).toEqual({ issuer: 'i', subject: 's', issuerKeys: 'k', expirationTime: null, audiences: ['a'] });
  });

  it('renders awsIdentity with its nested oneofs', () => {
    const out = renderV2(ID, { id: IDENTITY_UID, awsIdentity: { awsAccount: '123456789012', arnPattern: 'arn:.*' } });
    expect(out.awsIdentity).toEqual({ awsAccount: '123456789012', arnPattern: 'arn:.*' });
  });

  it('prefixes ServicePrincipal names (same numbers), never passing v1 names through', () => {
    expect(renderV2(ID, { id: IDENTITY_UID, servicePrincipal: 'COSIGNED' }).servicePrincipal).toBe('SERVICE_PRINCIPAL_COSIGNED');
    expect(renderV2(ID, { id: IDENTITY_UID, servicePrincipal: 'CATALOG_SYNCER' }).servicePrincipal).toBe('SERVICE_PRINCIPAL_CATALOG_SYNCER');
    expect(renderV2(ID, { id: IDENTITY_UID, servicePrincipal: 'UNKNOWN' }).servicePrincipal).toBe('SERVICE_PRINCIPAL_UNSPECIFIED');
    expect(renderV2(ID, { id: IDENTITY_UID, servicePrincipal: 'NOT_A_PRINCIPAL' }).servicePrincipal).toBe('SERVICE_PRINCIPAL_UNSPECIFIED');
  });

  it('renders an unparseable v1 timestamp as null, not as garbage', () => {
    expect(renderV2(ID, { id: IDENTITY_UID, createdAt: 'yesterday' }).createTime).toBeNull();
  });

  it('does not modify the v1 row', () => {
    const row = claimMatchRow();
    const copy = structuredClone(row);
    renderV2(ID, row);
    expect(row).toEqual(copy);
  });
});

describe('renderV2: groups', () => {
  it('renders zero values for absent fields: "" / false / {} / enum zero / null', () => {
    expect(renderV2(groups.fields, { id: ROOT, name: 'acme' })).toEqual({
      uid: ROOT,
      name: 'acme',
      description: '',
      resourceLimits: {},
      verified: false,
      kind: 'ORG_KIND_UNSPECIFIED',
      status: 'ORG_STATUS_UNSPECIFIED',
      createTime: null,
      updateTime: null,
    });
  });

  it('copies resourceLimits and keeps unchanged enum names', () => {
    const out = renderV2(groups.fields, { id: ROOT, resourceLimits: { clusters: 1, repositories: 20 }, verified: true, kind: 'ORG_KIND_CUSTOMER' });
    expect(out.resourceLimits).toEqual({ clusters: 1, repositories: 20 });
    expect(out.verified).toBe(true);
    expect(out.kind).toBe('ORG_KIND_CUSTOMER');
  });
});

describe('renderV2: roles', () => {
  it('translates capabilities through the table, dropping unknown ones', () => {
    const out = renderV2(roles.fields, {
      id: ROLE_UID, name: 'r', capabilities: ['groups.list', 'identity.create', 'repo.list', 'internal', 'no.such.capability'],
    });
    expect(out.capabilities).toEqual(['CAP_IAM_GROUPS_LIST', 'CAP_IAM_IDENTITY_CREATE', 'CAP_REPO_LIST', 'CAP_INTERNAL']);
  });

  it('renders absent capabilities as []', () => {
    expect(renderV2(roles.fields, { id: ROLE_UID }).capabilities).toEqual([]);
  });

  it('does not pass v2 names through when v1 sends them (translation is one way)', () => {
    expect(renderV2(roles.fields, { id: ROLE_UID, capabilities: ['CAP_IAM_GROUPS_LIST'] }).capabilities).toEqual([]);
  });
});

describe('renderV2: repos', () => {
  it('renames CatalogTier by name: v1 BASE → CATALOG_TIER_BASE', () => {
    const tiers: [string, string][] = [
      ['UNKNOWN', 'CATALOG_TIER_UNSPECIFIED'],
      ['APPLICATION', 'CATALOG_TIER_APPLICATION'],
      ['BASE', 'CATALOG_TIER_BASE'],
      ['FIPS', 'CATALOG_TIER_FIPS'],
      ['AI', 'CATALOG_TIER_AI'],
      ['DEVTOOLS', 'CATALOG_TIER_DEVTOOLS'],
      ['COMMERCIAL', 'CATALOG_TIER_COMMERCIAL'],
    ];
    for (const [v1, v2] of tiers) expect(renderV2(repos.fields, { id: GROUP, catalogTier: v1 }).catalogTier).toBe(v2);
  });

  it('never maps CatalogTier by number', () => {
    // v1 BASE is 5; v2 number 5 is DEVTOOLS and v2 BASE is 2. A number must not be read as either table's value.
    const five = renderV2(repos.fields, { id: GROUP, catalogTier: 5 }).catalogTier;
    const two = renderV2(repos.fields, { id: GROUP, catalogTier: 2 }).catalogTier;
    expect(five).not.toBe('CATALOG_TIER_DEVTOOLS');
    expect(two).not.toBe('CATALOG_TIER_BASE');
    expect(renderV2(repos.fields, { id: GROUP }).catalogTier).toBe('CATALOG_TIER_UNSPECIFIED');
  });

  it('keeps the snake_case sync_config key and renames expiration → expirationTime', () => {
    const out = renderV2(repos.fields, {
      id: GROUP,
      name: 'nginx',
      createTime: '2024-01-01T00:00:00.123456Z',
      sync_config: { source: ROOT, uniqueTags: true, expiration: '2024-02-01T00:00:00Z', syncApks: true },
    });
    expect('syncConfig' in out).toBe(false);
    expect(out.sync_config).toEqual({
      source: ROOT, uniqueTags: true, expirationTime: '2024-02-01T00:00:00.000Z', google: '', amazon: '', azure: '', apkoOverlay: '', gracePeriod: false,
    });
    expect(out.createTime).toBe('2024-01-01T00:00:00.123Z');
    expect(out.updateTime).toBeNull();
  });

  it('renders a missing sync_config and customOverlay as null, repeated fields as []', () => {
    const out = renderV2(repos.fields, { id: GROUP, name: 'nginx' });
    expect(out.sync_config).toBeNull();
    expect(out.customOverlay).toBeNull();
    expect(out.bundles).toEqual([]);
    expect(out.aliases).toEqual([]);
    expect(out.activeTags).toEqual([]);
  });

  it('renames overlay accounts: users userName → username, groups groupName → groupname (users keep groupName)', () => {
    const out = renderV2(repos.fields, {
      id: GROUP,
      customOverlay: {
        environment: { A: '1' },
        accounts: {
          runAs: '65532',
          users: [{ userName: 'nonroot', uid: 65532, gid: 65532, groupName: 'nonroot', shell: '/bin/sh', homeDir: '/home/nonroot' }],
          groups: [{ groupName: 'nonroot', gid: 65532, members: ['nonroot'] }],
        },
      },
    });
    const overlay = out.customOverlay as Json;
    expect(overlay.environment).toEqual({ A: '1' });
    expect(overlay.annotations).toEqual({});
    expect(overlay.accounts).toEqual({
      runAs: '65532',
      users: [{ username: 'nonroot', uid: 65532, gid: 65532, groupName: 'nonroot', shell: '/bin/sh', homeDir: '/home/nonroot' }],
      groups: [{ groupname: 'nonroot', gid: 65532, members: ['nonroot'] }],
    });
  });

  it('renders a user without gid with gid 0 (int zero value)', () => {
    const out = renderV2(repos.fields, { id: GROUP, customOverlay: { accounts: { users: [{ userName: 'u', uid: 1 }] } } });
    const users = getPath(out, 'customOverlay.accounts.users') as Json[];
    expect(users[0]).toMatchObject({ username: 'u', uid: 1, gid: 0, groupName: '', shell: '', homeDir: '' });
  });
});

describe('role bindings: a v1 list row rendered, its identity filled from the identity', () => {
  const row: Json = {
    id: BINDING_UID,
    group: { id: GROUP, name: 'engineering', description: 'Eng team', resourceLimits: { clusters: 1 }, verified: false },
    identity: IDENTITY_UID,
    role: { id: ROLE_UID, name: 'viewer', description: 'Read only', capabilities: ['groups.list'] },
    email: 'dev@example.com',
    emailUnverified: 'old@example.com',
    claimMatchIssuer: 'https://accounts.google.com',
    claimMatchSubject: '1234567890',
    createdAt: '2024-06-01T12:00:00.123456Z',
  };
  const identitiesById: Record<string, Json> = {
    [IDENTITY_UID]: { id: IDENTITY_UID, name: 'Dev Person', description: 'a developer' },
  };

  /** The render stage over a v1 adapter whose v1 answers identity lists from `identitiesById`, and the calls it made. */
  function stage(): { render: (row: Json) => Promise<Json>; calls: V1Call[] } {
    const calls: V1Call[] = [];
    const v1 = {
      call: async (call: V1Call) => {
        calls.push(call);
        const ids = [call.query?.['uidp.ids'] ?? call.query?.id].flat();
        return { items: ids.map((id) => identitiesById[String(id)]).filter(Boolean) };
      },
    } as unknown as V1Client;
    const backend = new V1Backend({ v1, registry: new MappingRegistry(MAPPINGS), maxFanOut: 8 });
    const ctx = requestContext({ authorization: 'Bearer t', requestId: 'test', budgetMs: 60_000 });
    const rendered = new RenderStage(backend);
    return { render: async (one) => rendered.one(roleBindings, one, ctx), calls };
  }

  it('builds identity, group and role objects, with the identity name and description from the identity', async () => {
    const { render, calls } = stage();
    expect(await render(row)).toEqual({
      uid: BINDING_UID,
      identity: {
        uid: IDENTITY_UID,
        name: 'Dev Person',
        description: 'a developer',
        subject: '1234567890',
        issuer: 'https://accounts.google.com',
        email: 'dev@example.com',
      },
      group: { uid: GROUP, name: 'engineering', description: 'Eng team' },
      role: { uid: ROLE_UID, name: 'viewer', description: 'Read only' },
      createTime: '2024-06-01T12:00:00.123Z',
      identityUid: IDENTITY_UID,
      roleUid: ROLE_UID,
    });
    // One v1 call for the identity, by id; group and role come from the binding's own row.
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'GET', path: '/iam/v1/identities' });
    expect([calls[0]!.query?.['uidp.ids']].flat()).toEqual([IDENTITY_UID]);
  });

  it('renders the filled fields as "" when the reference is not filled, or its identity is gone', async () => {
    const out = renderV2(roleBindings.fields, row);
    expect(out.identity).toEqual({
      uid: IDENTITY_UID, name: '', description: '', subject: '1234567890', issuer: 'https://accounts.google.com', email: 'dev@example.com',
    });
    const unresolved = await stage().render({ ...row, identity: `${GROUP}/${'9'.repeat(16)}` });
    expect((unresolved.identity as Json).name).toBe('');
  });

  it('does not leak v1-only binding fields (emailUnverified, capabilities, resourceLimits, flat ids)', () => {
    const out = renderV2(roleBindings.fields, row);
    expect(JSON.stringify(out)).not.toContain('old@example.com');
    expect((out.role as Json).capabilities).toBeUndefined();
    expect((out.group as Json).resourceLimits).toBeUndefined();
    expect((out.group as Json).id).toBeUndefined();
  });
});

describe('readBody', () => {
  it('accepts JSON (lowerCamel) names', () => {
    const { value, unknown } = readBody(ID, { name: 'n', claimMatch: { issuer: 'i', subjectPattern: 's.*' } });
    expect(value).toEqual({ name: 'n', claimMatch: { issuer: 'i', subjectPattern: 's.*' } });
    expect(unknown).toEqual([]);
  });

  it('accepts proto (snake_case) names, answering lowerCamel keys', () => {
    const { value, unknown } = readBody(ID, {
      claim_match: { issuer_pattern: 'https://.*', subject: 's', claim_patterns: { k: 'v' } },
      service_principal: 'SERVICE_PRINCIPAL_COSIGNED',
    });
    expect(value).toEqual({ claimMatch: { issuerPattern: 'https://.*', subject: 's', claimPatterns: { k: 'v' } }, servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED' });
    expect(unknown).toEqual([]);
  });

  it('does not rename map keys', () => {
    const { value } = readBody(ID, { claimMatch: { claims: { some_claim: 'x', otherClaim: 'y' } } });
    expect(value).toEqual({ claimMatch: { claims: { some_claim: 'x', otherClaim: 'y' } } });
  });

  it('reports unknown keys as dotted paths and leaves them out', () => {
    const { value, unknown } = readBody(ID, { name: 'n', colour: 'red', claimMatch: { issuer: 'i', nope: 1 }, static: {} });
    expect(value).toEqual({ name: 'n', claimMatch: { issuer: 'i' } });
    expect(unknown).toEqual(['colour', 'claimMatch.nope', 'static']);
  });

  it('reads staticKeys under static_keys, and expiration_time inside it', () => {
    const { value, unknown } = readBody(ID, { static_keys: { issuer_keys: 'k', expiration_time: '2025-01-01T00:00:00Z' } });
    expect(value).toEqual({ staticKeys: { issuerKeys: 'k', expirationTime: '2025-01-01T00:00:00Z' } });
    expect(unknown).toEqual([]);
  });

  it('accepts sync_config and reports syncConfig as unknown (json_name is snake_case)', () => {
    const snake = readBody(repos.fields, { sync_config: { source: ROOT, unique_tags: true } });
    expect(snake.value).toEqual({ sync_config: { source: ROOT, uniqueTags: true } });
    expect(snake.unknown).toEqual([]);
    const camel = readBody(repos.fields, { syncConfig: { source: ROOT } });
    expect(camel.value).toEqual({});
    expect(camel.unknown).toEqual(['syncConfig']);
  });

  it('recurses into repeated messages, reporting unknown keys inside them', () => {
    const { value, unknown } = readBody(repos.fields, {
      custom_overlay: { accounts: { run_as: '1', users: [{ username: 'a', home_dir: '/h', userName: 'v1-spelling' }], groups: [{ groupname: 'g' }] } },
    });
    expect(value).toEqual({ customOverlay: { accounts: { runAs: '1', users: [{ username: 'a', homeDir: '/h' }], groups: [{ groupname: 'g' }] } } });
    expect(unknown).toEqual(['customOverlay.accounts.users.userName']);
  });

  it('keeps non-object values of message fields as they are (validation judges them)', () => {
    expect(readBody(ID, { claimMatch: 'oops' }).value).toEqual({ claimMatch: 'oops' });
    expect(readBody(ID, { claimMatch: null }).value).toEqual({ claimMatch: null });
  });

  it('reads role binding inputs in both spellings', () => {
    expect(readBody(roleBindings.fields, { identity_uid: 'a', roleUid: 'b' }).value).toEqual({ identityUid: 'a', roleUid: 'b' });
  });
});

describe('toV1', () => {
  it('renames back: staticKeys → static, expirationTime → expiration', () => {
    expect(toV1(ID, {
      name: 'n',
      description: 'd',
      staticKeys: { issuer: 'i', subject: 's', issuerKeys: 'k', expirationTime: '2025-01-01T00:00:00Z', audiences: ['a'] },
    })).toEqual({
      name: 'n',
      description: 'd',
      static: { issuer: 'i', subject: 's', issuerKeys: 'k', expiration: '2025-01-01T00:00:00Z', audiences: ['a'] },
    });
  });

  it('renames enums back by name', () => {
    expect(toV1(ID, { servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED' })).toEqual({ servicePrincipal: 'COSIGNED' });
    expect(toV1(repos.fields, { catalogTier: 'CATALOG_TIER_BASE' })).toEqual({ catalogTier: 'BASE' });
    expect(toV1(repos.fields, { catalogTier: 'CATALOG_TIER_UNSPECIFIED' })).toEqual({ catalogTier: 'UNKNOWN' });
    expect(toV1(roles.fields, { name: 'r', capabilities: ['CAP_IAM_GROUPS_LIST', 'CAP_REPO_LIST'] })).toEqual({ name: 'r', capabilities: ['groups.list', 'repo.list'] });
  });

  it('drops output-only fields, fields v1 lacks, and undefined values', () => {
    expect(toV1(ID, {
      uid: 'x', name: 'n', createTime: 't', updateTime: 't', lastSeenTime: 't', email: 'e', emailUnverified: 'e', company: 'c', description: undefined,
    })).toEqual({ name: 'n' });
    expect(toV1(groups.fields, { name: 'g', resourceLimits: { clusters: 1 }, status: 'ORG_STATUS_READY' })).toEqual({ name: 'g' });
  });

  it('drops output-only members of sub-messages', () => {
    expect(toV1(repos.fields, { sync_config: { source: ROOT, uniqueTags: true, expirationTime: 't', apkoOverlay: 'x', gracePeriod: true } })).toEqual({
      sync_config: { source: ROOT },
    });
  });

  it('renames overlay accounts back: username → userName, groupname → groupName', () => {
    expect(toV1(repos.fields, {
      customOverlay: { accounts: { users: [{ username: 'u', uid: 1, groupName: 'g' }], groups: [{ groupname: 'g', gid: 2 }] } },
    })).toEqual({
      customOverlay: { accounts: { users: [{ userName: 'u', uid: 1, groupName: 'g' }], groups: [{ groupName: 'g', gid: 2 }] } },
    });
  });

  it('writes role binding inputs to the flat v1 keys', () => {
    expect(toV1(roleBindings.fields, { identityUid: IDENTITY_UID, roleUid: ROLE_UID, uid: 'x', identity: { uid: 'y' } })).toEqual({
      identity: IDENTITY_UID, role: ROLE_UID,
    });
  });

  it('ignores keys that name no field', () => {
    expect(toV1(ID, { name: 'n', colour: 'red' })).toEqual({ name: 'n' });
  });
});

describe('writeV1Path', () => {
  const v1Identity = (): Json => ({
    id: IDENTITY_UID,
    name: 'n',
    description: 'd',
    claimMatch: { issuer: 'https://i', subjectPattern: 'repo:.*' },
    lastSeen: '2024-01-01T00:00:00Z',
  });

  it('sets a renamed top-level field', () => {
    const put = v1Identity();
    writeV1Path(ID, put, 'name', 'renamed');
    expect(put.name).toBe('renamed');
  });

  it('undefined deletes the value (a full-replacement PUT then clears it)', () => {
    const put = v1Identity();
    writeV1Path(ID, put, 'description', undefined);
    expect('description' in put).toBe(false);
  });

  it('setting a relationship member clears its oneof siblings', () => {
    const put = v1Identity();
    writeV1Path(ID, put, 'staticKeys', { issuer: 'i', subject: 's', issuerKeys: 'k', expirationTime: '2025-01-01T00:00:00Z' });
    expect(put.static).toEqual({ issuer: 'i', subject: 's', issuerKeys: 'k', expiration: '2025-01-01T00:00:00Z' });
    expect('claimMatch' in put).toBe(false);
    expect('staticKeys' in put).toBe(false);
    expect(put.lastSeen).toBe('2024-01-01T00:00:00Z');
  });

  it('a nested path inside a member renames on the way and clears the other members', () => {
    const put = v1Identity();
    writeV1Path(ID, put, 'staticKeys.expirationTime', '2025-06-01T00:00:00Z');
    expect(put.static).toEqual({ expiration: '2025-06-01T00:00:00Z' });
    expect('claimMatch' in put).toBe(false);
  });

  it('a nested oneof member clears its sibling inside the sub-message', () => {
    const put = v1Identity();
    writeV1Path(ID, put, 'claimMatch.subject', 'repo:org/app');
    expect(put.claimMatch).toEqual({ issuer: 'https://i', subject: 'repo:org/app' });
  });

  it('clearing a oneof member (undefined) leaves its siblings alone', () => {
    const put: Json = { id: IDENTITY_UID, claimMatch: { issuer: 'i', subject: 's' }, static: { issuer: 'x' } };
    writeV1Path(ID, put, 'staticKeys', undefined);
    expect('static' in put).toBe(false);
    expect(put.claimMatch).toEqual({ issuer: 'i', subject: 's' });
  });

  it('clearing a nested path of an unset member does not add that member beside the set one', () => {
    // e.g. PATCH ?update_mask=static_keys.expiration_time with body {} on a claimMatch identity:
    // the v1 PUT body must not end up holding two members of the relationship oneof
    // (v1 refuses that: "oneof … relationship is already set").
    const put = v1Identity();
    writeV1Path(ID, put, 'staticKeys.expirationTime', undefined);
    const members = ['claimMatch', 'static', 'awsIdentity', 'servicePrincipal'].filter((k) => put[k] !== undefined);
    expect(members).toHaveLength(1);
  });

  it('renames an enum back and clears the other relationship members', () => {
    const put = v1Identity();
    writeV1Path(ID, put, 'servicePrincipal', 'SERVICE_PRINCIPAL_INGESTER');
    expect(put.servicePrincipal).toBe('INGESTER');
    expect('claimMatch' in put).toBe(false);
  });

  it('creates missing intermediate objects', () => {
    const put: Json = { id: IDENTITY_UID };
    writeV1Path(ID, put, 'claimMatch.issuer', 'https://i');
    expect(put.claimMatch).toEqual({ issuer: 'https://i' });
  });

  it('does nothing for a path v1 lacks or no field names', () => {
    const put = v1Identity();
    const before = structuredClone(put);
    writeV1Path(ID, put, 'company', 'Acme');
    writeV1Path(ID, put, 'colour', 'red');
    writeV1Path(ID, put, 'claimMatch.colour', 'red');
    expect(put).toEqual(before);
  });

  it('writes a role binding roleUid to the flat `role` key (v1Write)', () => {
    const put: Json = { id: BINDING_UID, identity: IDENTITY_UID, role: 'old-role', group: GROUP };
    writeV1Path(roleBindings.fields, put, 'roleUid', ROLE_UID);
    expect(put).toEqual({ id: BINDING_UID, identity: IDENTITY_UID, role: ROLE_UID, group: GROUP });
    writeV1Path(roleBindings.fields, put, 'identityUid', 'new-identity');
    expect(put.identity).toBe('new-identity');
  });

  it('writes repo overlay accounts with the v1 key names, and sync_config under its snake key', () => {
    const put: Json = { id: GROUP, name: 'nginx', readme: '# keep me', sync_config: { source: 'old', uniqueTags: true } };
    writeV1Path(repos.fields, put, 'customOverlay.accounts.users', [{ username: 'u', uid: 1 }]);
    writeV1Path(repos.fields, put, 'sync_config.source', ROOT);
    writeV1Path(repos.fields, put, 'catalogTier', 'CATALOG_TIER_FIPS');
    expect(put).toEqual({
      id: GROUP,
      name: 'nginx',
      readme: '# keep me',
      sync_config: { source: ROOT, uniqueTags: true },
      customOverlay: { accounts: { users: [{ userName: 'u', uid: 1 }] } },
      catalogTier: 'FIPS',
    });
  });
});

describe('copyV2Path', () => {
  const current = (): Json => ({
    uid: IDENTITY_UID,
    name: 'n',
    description: 'd',
    claimMatch: { issuer: 'https://i', subjectPattern: 'repo:.*', claims: {}, claimPatterns: {} },
  });

  it('copies a top-level value', () => {
    const to = current();
    copyV2Path(ID, { name: 'new' }, to, 'name');
    expect(to.name).toBe('new');
  });

  it('a value absent from the source clears the target', () => {
    const to = current();
    copyV2Path(ID, {}, to, 'description');
    expect('description' in to).toBe(false);
  });

  it('setting a oneof member removes its siblings', () => {
    const to = current();
    copyV2Path(ID, { staticKeys: { issuer: 'i', subject: 's', issuerKeys: 'k' } }, to, 'staticKeys');
    expect(to.staticKeys).toEqual({ issuer: 'i', subject: 's', issuerKeys: 'k' });
    expect('claimMatch' in to).toBe(false);
    expect(to.name).toBe('n');
  });

  it('setting a nested path of a member also removes the other members', () => {
    const to: Json = { uid: IDENTITY_UID, name: 'n', servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED' };
    copyV2Path(ID, { claimMatch: { issuer: 'x' } }, to, 'claimMatch.issuer');
    expect(to.claimMatch).toEqual({ issuer: 'x' });
    expect('servicePrincipal' in to).toBe(false);
  });

  it('clearing a oneof member (absent or null) keeps its siblings', () => {
    const to = current();
    copyV2Path(ID, {}, to, 'staticKeys');
    expect(to.claimMatch).toBeDefined();
    copyV2Path(ID, { servicePrincipal: null }, to, 'servicePrincipal');
    expect(to.claimMatch).toBeDefined();
    expect(to.servicePrincipal).toBeNull();
  });

  it('clearing a nested path of an unset member does not add that member beside the set one', () => {
    const to = current();
    copyV2Path(ID, {}, to, 'staticKeys.expirationTime');
    const members = ['claimMatch', 'staticKeys', 'awsIdentity', 'servicePrincipal'].filter((k) => to[k] !== undefined && to[k] !== null);
    expect(members).toEqual(['claimMatch']);
  });

  it('a nested oneof member pushes out its sibling inside the sub-message', () => {
    // claimMatch has oneof subject {subject, subjectPattern}: setting subject must unset subjectPattern,
    // as protobuf does (and as writeV1Path does for the v1 body).
    const to = current();
    copyV2Path(ID, { claimMatch: { subject: 'repo:org/app' } }, to, 'claimMatch.subject');
    expect(to.claimMatch).toEqual({ issuer: 'https://i', subject: 'repo:org/app', claims: {}, claimPatterns: {} });
  });
});

describe('getPath', () => {
  it('walks dotted paths and answers undefined through non-objects', () => {
    expect(getPath({ a: { b: { c: 1 } } }, 'a.b.c')).toBe(1);
    expect(getPath({ a: { b: 1 } }, 'a.b.c')).toBeUndefined();
    expect(getPath({ a: [{ b: 1 }] }, 'a.0.b')).toBeUndefined();
    expect(getPath(null, 'a')).toBeUndefined();
  });
});

describe('Object.prototype names in bodies and paths', () => {
  const INHERITED = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
  /** JSON.parse makes `__proto__` an own key, as the transport's parser does. */
  const parse = (text: string) => JSON.parse(text) as Json;

  it('readBody reports them as unknown keys, top-level and nested, and the value it answers keeps its prototype', () => {
    for (const name of INHERITED) {
      const { value, unknown } = readBody(ID, parse(`{"name": "n", "${name}": {"polluted": true}, "claimMatch": {"issuer": "i", "${name}": {"polluted": true}}}`));
      expect(unknown).toEqual([name, `claimMatch.${name}`]);
      expect(value).toEqual({ name: 'n', claimMatch: { issuer: 'i' } });
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(Object.getPrototypeOf(value.claimMatch)).toBe(Object.prototype);
      expect((value as { polluted?: unknown }).polluted).toBeUndefined();
    }
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('readUpdate refuses them as body keys, with a mask or without, and as mask paths', () => {
    for (const name of INHERITED) {
      invalidOn(name, () => readUpdate(ID, parse(`{"${name}": {"name": "x"}}`), undefined));
      invalidOn(`claimMatch.${name}`, () => readUpdate(ID, parse(`{"claimMatch": {"${name}": {"issuer": "x"}}}`), undefined));
      invalidOn('update_mask', () => readUpdate(ID, { name: 'x' }, name));
      invalidOn('update_mask', () => readUpdate(ID, { name: 'x' }, `claimMatch.${name}`));
      invalidOn(name, () => readUpdate(ID, parse(`{"name": "x", "${name}": {}}`), 'name'));
    }
  });

  it('getPath reads own properties only', () => {
    for (const name of INHERITED) {
      expect(getPath({ a: {} }, name)).toBeUndefined();
      expect(getPath({ a: {} }, `a.${name}`)).toBeUndefined();
    }
    expect(getPath(parse('{"__proto__": {"x": 1}}'), '__proto__.x')).toBe(1);
  });

  it('writing or copying such a path changes nothing, and no path resolves through them', () => {
    for (const name of INHERITED) {
      const target: Json = { name: 'kept', claimMatch: { issuer: 'i' } };
      writeV1Path(ID, target, name, { polluted: true });
      writeV1Path(ID, target, `claimMatch.${name}`, 'x');
      copyV2Path(ID, { [name]: 'x' }, target, name);
      expect(target).toEqual({ name: 'kept', claimMatch: { issuer: 'i' } });
      expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
      expect(Object.getPrototypeOf(target.claimMatch)).toBe(Object.prototype);
      expect(v1WritePath(ID, name)).toBeNull();
      expect(validationScope(ID, [name])).toEqual([name]);
    }
  });

  it('toV1 drops them', () => {
    expect(toV1(roles.fields, parse('{"name": "r", "__proto__": {"id": "x"}, "constructor": "y"}'))).toEqual({ name: 'r' });
  });
});
