/**
 * An account association's `chainguard.serviceBindings` is keyed by service
 * principal. v2 spells the keys with the enum's prefix
 * (`SERVICE_PRINCIPAL_COSIGNED`), v1 without (`COSIGNED`): the gateway takes
 * either, sends v1 its own spelling and answers with v2's, over REST and gRPC,
 * in every mode. A key that names no service principal is INVALID_ARGUMENT.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { ALL_MODES, describeModes } from '../support/modes.ts';
import { aip } from '../support/stack.ts';

const SERVICE = 'chainguard.platform.iam.v2beta1.AccountAssociationsService';

describeModes('service-binding keys', (stack) => {
  let grpc: GrpcClient;
  let org = '';
  let cosigned = '';
  let ingester = '';
  const client = () => stack().client;
  beforeAll(async () => {
    grpc = new GrpcClient(stack().url);
    org = (await client().post('/iam/v2beta1/groups', { name: 'bindings-org' })).body.uid;
    const principal = async (name: string, servicePrincipal: string) =>
      (await client().post(`/iam/v2beta1/identities/${org}`, { name, servicePrincipal })).body.uid as string;
    cosigned = await principal('cosigned', 'SERVICE_PRINCIPAL_COSIGNED');
    ingester = await principal('ingester', 'SERVICE_PRINCIPAL_INGESTER');
  });
  afterAll(() => grpc?.close());

  it('takes the v2 spelling and answers with it, over REST and gRPC', async () => {
    const made = await client().post(`/iam/v2beta1/accountAssociations/${org}`, {
      name: 'bound', chainguard: { serviceBindings: { SERVICE_PRINCIPAL_COSIGNED: cosigned } },
    });
    expect(made.status).toBe(200);
    expect(made.body.chainguard.serviceBindings).toEqual({ SERVICE_PRINCIPAL_COSIGNED: cosigned });
    expect((await client().get(`/iam/v2beta1/accountAssociations/${org}`)).body.chainguard.serviceBindings).toEqual({ SERVICE_PRINCIPAL_COSIGNED: cosigned });
    const listed = await client().get('/iam/v2beta1/accountAssociations', { 'uidp.ids': org });
    expect(listed.body.accountAssociations[0].chainguard.serviceBindings).toEqual({ SERVICE_PRINCIPAL_COSIGNED: cosigned });
    const got = await grpc.call(SERVICE, 'GetAccountAssociation', { uid: org });
    expect(got.chainguard.serviceBindings).toEqual({ SERVICE_PRINCIPAL_COSIGNED: cosigned });
  });

  it('takes v1\'s spelling too (a client written against v1) and answers with v2\'s', async () => {
    const updated = await grpc.call(SERVICE, 'UpdateAccountAssociation', {
      accountAssociation: { uid: org, name: 'bound', chainguard: { serviceBindings: { COSIGNED: cosigned, SERVICE_PRINCIPAL_INGESTER: ingester } } },
      updateMask: { paths: ['chainguard'] },
    });
    expect(updated.chainguard.serviceBindings).toEqual({ SERVICE_PRINCIPAL_COSIGNED: cosigned, SERVICE_PRINCIPAL_INGESTER: ingester });
    const read = await client().get(`/iam/v2beta1/accountAssociations/${org}`);
    expect(read.body.chainguard.serviceBindings).toEqual({ SERVICE_PRINCIPAL_COSIGNED: cosigned, SERVICE_PRINCIPAL_INGESTER: ingester });
  });

  it('refuses a key that names no service principal, naming the field', async () => {
    const team = (await client().post(`/iam/v2beta1/groups/${org}`, { name: 'team' })).body.uid;
    for (const key of ['SERVICE_PRINCIPAL_NOPE', 'SERVICE_PRINCIPAL_UNSPECIFIED']) {
      const refused = await client().post(`/iam/v2beta1/accountAssociations/${team}`, { name: 'bad', chainguard: { serviceBindings: { [key]: cosigned } } });
      expect(refused.status).toBe(400);
      expect(aip(refused).byType.BadRequest.fieldViolations[0].field).toMatch(/^chainguard\.serviceBindings/);
    }
    const overGrpc = await rejected(grpc.call(SERVICE, 'CreateAccountAssociation', {
      parent: team, accountAssociation: { name: 'bad', chainguard: { serviceBindings: { NOPE: cosigned } } },
    }));
    expect(overGrpc.code).toBe(3);
  });
}, { modes: ALL_MODES });
