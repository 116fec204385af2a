/** The committed descriptor set: up to date with proto/, and carrying the v2beta1 facts the gateway relies on. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DescMethod, DescService } from '@bufbuild/protobuf';
import { FieldDescriptorProto_Label, FieldDescriptorProto_Type } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { apiServices, capabilityV1Name, contract, fieldBehaviors, httpRule, requiredCapabilities } from '../../src/contract/registry.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMMITTED = fileURLToPath(new URL('../../src/contract/descriptors.binpb', import.meta.url));

function service(name: string): DescService {
  const desc = contract.getService(name);
  if (!desc) throw new Error(`no service ${name}`);
  return desc;
}

function method(serviceName: string, name: string): DescMethod {
  const desc = service(serviceName).methods.find((m) => m.name === name);
  if (!desc) throw new Error(`no method ${serviceName}.${name}`);
  return desc;
}

const IAM = 'chainguard.platform.iam.v2beta1';

describe('descriptors.binpb', () => {
  it('is what buf builds from proto/ today', () => {
    const dir = mkdtempSync(join(tmpdir(), 'v2gw-proto-'));
    try {
      const out = join(dir, 'descriptors.binpb');
      execFileSync(join(ROOT, 'node_modules/.bin/buf'), ['build', 'proto', '--exclude-source-info', '-o', out], { cwd: ROOT, stdio: 'pipe' });
      const fresh = readFileSync(out);
      const committed = readFileSync(COMMITTED);
      expect(Buffer.compare(fresh, committed) === 0, 'src/contract/descriptors.binpb is stale: run `npm run proto`').toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('contract facts', () => {
  it('lists only chainguard.platform services as API services', () => {
    const names = apiServices().map((s) => s.typeName);
    expect(names).toContain(`${IAM}.GroupsService`);
    expect(names).toContain(`${IAM}.RoleBindingsService`);
    expect(names.every((n) => n.startsWith('chainguard.platform.'))).toBe(true);
  });

  it('routes the Groups methods', () => {
    expect(httpRule(method(`${IAM}.GroupsService`, 'CreateGroup'))).toEqual({
      verb: 'post', pattern: '/iam/v2beta1/groups/{parent=**}', body: 'group', responseBody: '', additional: [],
    });
    expect(httpRule(method(`${IAM}.GroupsService`, 'UpdateGroup'))).toMatchObject({
      verb: 'patch', pattern: '/iam/v2beta1/groups/{group.uid=**}', body: 'group',
    });
    expect(httpRule(method(`${IAM}.GroupsService`, 'LookupGroup'))).toMatchObject({ verb: 'get', pattern: '/iam/v2beta1/groups:lookupGroup', body: '' });
  });

  it('routes BatchCreateRoleBindings as a custom POST with the whole request as body', () => {
    expect(httpRule(method(`${IAM}.RoleBindingsService`, 'BatchCreateRoleBindings'))).toMatchObject({
      verb: 'post', pattern: '/iam/v2beta1/roleBindings:batchCreate', body: '*',
    });
  });

  it('marks Group.uid OUTPUT_ONLY and ListGroupsResponse.total_count as proto3-optional int64', () => {
    const group = contract.getMessage(`${IAM}.Group`)!;
    expect(fieldBehaviors(group.field.uid!)).toEqual(['OUTPUT_ONLY']);
    expect(fieldBehaviors(group.field.name!)).toEqual(['REQUIRED']);
    const total = contract.getMessage(`${IAM}.ListGroupsResponse`)!.field.totalCount!;
    expect(total.proto.proto3Optional).toBe(true);
    expect(total.proto.type).toBe(FieldDescriptorProto_Type.INT64);
    expect(total.proto.label).toBe(FieldDescriptorProto_Label.OPTIONAL);
  });

  it('uses lowerCamel JSON names except where json_name is set (Repo.sync_config)', () => {
    expect(contract.getMessage(`${IAM}.ListGroupsResponse`)!.field.nextPageToken!.jsonName).toBe('nextPageToken');
    expect(contract.getMessage('chainguard.platform.registry.v2beta1.Repo')!.field.syncConfig!.jsonName).toBe('sync_config');
  });

  it('reads the IAM capability annotations', () => {
    expect(requiredCapabilities(method(`${IAM}.GroupsService`, 'ListGroups'))).toEqual({
      capabilities: ['CAP_IAM_GROUPS_LIST'], unscoped: true, disabled: false,
    });
    expect(requiredCapabilities(method(`${IAM}.GroupsService`, 'GetGroup'))).toEqual({
      capabilities: ['CAP_IAM_GROUPS_LIST'], unscoped: false, disabled: false,
    });
    expect(requiredCapabilities(method(`${IAM}.IdentityProvidersService`, 'CreateIdentityProvider'))?.capabilities).toEqual([
      'CAP_IAM_IDENTITY_PROVIDERS_CREATE', 'CAP_IAM_ROLE_BINDINGS_CREATE',
    ]);
    expect(capabilityV1Name('CAP_IAM_GROUPS_LIST')).toBe('groups.list');
    expect(capabilityV1Name('CAP_NOPE')).toBeUndefined();
  });

  it('carries the health and reflection services and google.rpc.Status', () => {
    const health = service('grpc.health.v1.Health');
    expect(health.methods.map((m) => [m.name, m.methodKind])).toEqual([
      ['Check', 'unary'], ['List', 'unary'], ['Watch', 'server_streaming'],
    ]);
    expect(contract.getEnum('grpc.health.v1.HealthCheckResponse.ServingStatus')!.value[3]!.name).toBe('SERVICE_UNKNOWN');
    for (const pkg of ['grpc.reflection.v1', 'grpc.reflection.v1alpha']) {
      expect(service(`${pkg}.ServerReflection`).methods.map((m) => [m.name, m.methodKind])).toEqual([['ServerReflectionInfo', 'bidi_streaming']]);
    }
    expect(contract.getMessage('google.rpc.Status')!.fields.map((f) => [f.name, f.number])).toEqual([['code', 1], ['message', 2], ['details', 3]]);
    expect(contract.getMessage('google.rpc.BadRequest.FieldViolation')!.field.localizedMessage!.number).toBe(4);
  });
});
