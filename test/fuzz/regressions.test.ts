/**
 * What the fuzz suite found, pinned: requests that once answered INTERNAL,
 * each sent the way the fuzzer sent it.
 *
 * - A gRPC message that decodes from protobuf but has no JSON form (a
 *   Timestamp outside years 1 to 9999, a Duration past 10,000 years, a
 *   FieldMask path that is not snake_case) answered INTERNAL and logged an
 *   unhandled error (seed 6, requests #4062 and #7275); it is the caller's bad
 *   input: INVALID_ARGUMENT naming the field, and nothing is written.
 */
import { create, fromJson, type DescMethod } from '@bufbuild/protobuf';
import { DurationSchema, FieldMaskSchema, TimestampSchema } from '@bufbuild/protobuf/wkt';
import { ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { expect, it } from 'vitest';
import { apiServices, contract } from '../../src/contract/registry.ts';
import { describeModes } from '../support/modes.ts';
import { TOKEN } from '../support/stack.ts';

const rpc = (service: string, name: string): DescMethod => apiServices().find((s) => s.name === service)!.methods.find((m) => m.name === name)!;
const BadRequest = contract.getMessage('google.rpc.BadRequest')!;

describeModes('fuzz findings, pinned', (stack) => {
  const call = async (method: DescMethod, message: object) => {
    const client = createClient(method.parent, createGrpcTransport({ baseUrl: stack().url })) as unknown as Record<string, Function>;
    try {
      await client[method.localName]!(message, { headers: { authorization: TOKEN } });
    } catch (error) {
      if (!(error instanceof ConnectError)) throw error;
      const violations = error.findDetails(BadRequest).flatMap((d) => (d as unknown as { fieldViolations: { field: string }[] }).fieldViolations);
      return { code: error.code, message: error.rawMessage, fields: violations.map((v) => v.field) };
    }
    throw new Error(`${method.name} succeeded, but it was expected to fail`);
  };

  it('a message with no JSON form is INVALID_ARGUMENT naming the field, never INTERNAL, and writes nothing', async () => {
    const org = (await stack().client.post('/iam/v2beta1/groups', { name: 'fuzz-pinned' })).body.uid as string;
    const role = (await stack().client.post(`/iam/v2beta1/roles/${org}`, { name: 'pinned', capabilities: ['CAP_IAM_GROUPS_LIST'] })).body;

    const updateRole = rpc('RolesService', 'UpdateRole');
    const badTime = fromJson(updateRole.input, { role: { uid: role.uid, name: 'changed' } }) as any;
    badTime.role.createTime = create(TimestampSchema, { seconds: 999_999_999_999_999n });
    expect(await call(updateRole, badTime)).toMatchObject({ code: 3, fields: ['role.createTime'] });

    const badMask = fromJson(updateRole.input, { role: { uid: role.uid, name: 'changed' } }) as any;
    badMask.updateMask = create(FieldMaskSchema, { paths: ['name', 'descripTion'] });
    const mask = await call(updateRole, badMask);
    expect(mask).toMatchObject({ code: 3, fields: ['update_mask'] });
    expect(mask.message).toContain('descripTion');

    const createInvite = rpc('GroupInvitesService', 'CreateGroupInvite');
    const badTtl = fromJson(createInvite.input, { parent: org, groupInvite: { roleUid: role.uid } }) as any;
    badTtl.groupInvite.ttl = create(DurationSchema, { seconds: 400_000_000_000n });
    expect(await call(createInvite, badTtl)).toMatchObject({ code: 3, fields: ['groupInvite.ttl'] });

    expect((await stack().client.get(`/iam/v2beta1/roles/${role.uid}`)).body).toEqual(role);
    expect((await stack().client.get('/iam/v2beta1/groupInvites', { 'uidp.children_of': org })).body.groupInvites).toEqual([]);
    expect(stack().logs.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
  });
});
