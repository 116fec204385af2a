/**
 * No escalation under concurrent writes: what a grant is judged on is what it
 * writes. Two native replicas share one store (an SQLite file, or a PostgreSQL
 * schema); bob, who may create and update role bindings at `team`, writes
 * through replica 1, whose grants cache lasts a minute; alice, the owner,
 * through replica 2. A gate in replica 1's store holds bob's write at the
 * moment its store transaction would begin — after the method's
 * authorization, where the check once judged — or (PostgreSQL) at its insert,
 * after the judgement; alice writes meanwhile. Over REST and gRPC, real JWTs:
 *
 * - bob moving dave's binding onto himself while alice raises its role to
 *   owner is judged on owner: refused, the binding stays dave's;
 * - bob granting a custom role while alice adds a capability bob lacks to it
 *   (a binding over REST, an invite over gRPC) is judged on the role as
 *   raised: refused;
 * - bob, his binding revoked through replica 2 (replica 1's cache still
 *   holding it), can create no binding, batch, invite, identity provider or
 *   custom role that grants anything;
 * - PostgreSQL: alice revoking bob's binding while his judged grant is not
 *   yet written waits for it, so the grant lands before the revocation, never
 *   after it on a judgement it outdated.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startIssuer, type RunningIssuer } from '../../src/emulator/issuer/index.ts';
import { buildGateway } from '../../src/server.ts';
import { openStore } from '../../src/store/open.ts';
import type { ResourceStore, Store } from '../../src/store/types.ts';
import { AUDIENCE } from '../support/authenticated-native.ts';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { waitsOnLock } from '../support/lock-wait.ts';
import { PG_URL, withPg } from '../support/modes.ts';
import { aip, captureLogs, Client, type Reply } from '../support/stack.ts';

const IAM = 'chainguard.platform.iam.v2beta1';
const ALICE = 'a'.repeat(40);
/** bob's role at team: create and update bindings, invite, add providers and roles, and read groups. */
const GRANTER_CAPS = [
  'CAP_IAM_ROLE_BINDINGS_CREATE', 'CAP_IAM_ROLE_BINDINGS_UPDATE', 'CAP_IAM_GROUP_INVITES_CREATE',
  'CAP_IAM_IDENTITY_PROVIDERS_CREATE', 'CAP_IAM_ROLES_CREATE', 'CAP_IAM_GROUPS_LIST',
];

/** Holds the next store call it is armed for until the test releases it: the interleaving the test decides. */
class Gate {
  #armed: { reached: () => void; released: Promise<void> } | undefined;

  arm(): { reached: Promise<void>; release: () => void } {
    let reached!: () => void;
    let release!: () => void;
    const isReached = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.#armed = { reached, released };
    return { reached: isReached, release };
  }

  disarm(): void {
    this.#armed = undefined;
  }

  async pass(): Promise<void> {
    const armed = this.#armed;
    if (!armed) return;
    this.#armed = undefined;
    armed.reached();
    await armed.released;
  }
}

/**
 * `request`, started with `gate` armed; `meanwhile` runs while the gate holds it, and the gate lets it go
 * after, whatever happens (a request refused before the gate is a failure of the test, not a hang).
 */
async function interleaved<T>(gate: Gate, request: () => Promise<T>, meanwhile: () => Promise<unknown>): Promise<T> {
  const held = gate.arm();
  const answer = request();
  answer.catch(() => {});
  try {
    await Promise.race([held.reached, answer.then(() => { throw new Error('the request was answered before the gate held it'); })]);
    await meanwhile();
  } finally {
    gate.disarm();
    held.release();
  }
  return answer;
}

/** The store with two gates: before a transaction begins, and before a row is written inside one. */
function gated(store: Store, gates: { transaction: Gate; write: Gate }): Store {
  const writes = (resources: ResourceStore): ResourceStore => ({
    insert: async (row) => {
      await gates.write.pass();
      return resources.insert(row);
    },
    replace: async (kind, uid, body, updateTime) => {
      await gates.write.pass();
      return resources.replace(kind, uid, body, updateTime);
    },
    get: (kind, uid) => resources.get(kind, uid),
    getForUpdate: (kind, uid) => resources.getForUpdate(kind, uid),
    delete: (kind, uid) => resources.delete(kind, uid),
    list: (query) => resources.list(query),
    countChildren: (parent, kinds) => resources.countChildren(parent, kinds),
  });
  return {
    engine: store.engine,
    resources: store.resources,
    timestamps: store.timestamps,
    events: store.events,
    comparisons: store.comparisons,
    queries: store.queries,
    ping: () => store.ping(),
    close: () => store.close(),
    transaction: async (work) => {
      await gates.transaction.pass();
      return store.transaction((tx) => work({ ...tx, resources: writes(tx.resources) }));
    },
  };
}

interface Replica {
  client: Client;
  grpc: GrpcClient;
  close(): Promise<void>;
}

describe.each(['native', 'native-pg'] as const)('no escalation under concurrent writes, two replicas (REST and gRPC) [%s]', (mode) => {
  const gates = { transaction: new Gate(), write: new Gate() };
  const tokens = new Map<string, string>();
  let issuer: RunningIssuer;
  let stores: Store[] = [];
  let replicas: Replica[] = [];
  let schema: string | undefined;
  let directory: string | undefined;
  let org: string;
  let team: string;
  let owner: string;
  let lister: string;
  let granter: string;
  let bob: string;
  let dave: string;
  let bobsBinding: string;

  const as = async (who: string) => {
    if (!tokens.has(who)) tokens.set(who, `Bearer ${await issuer.apiToken(who, AUDIENCE)}`);
    return tokens.get(who)!;
  };
  /** REST through replica 1 (bob's) or 2 (alice's). */
  const call = async (replica: 1 | 2, who: string, method: string, path: string, options: { body?: unknown; query?: Record<string, string> } = {}): Promise<Reply> =>
    replicas[replica - 1]!.client.call(method, path, { ...options, authorization: await as(who) });
  const rpc = async (replica: 1 | 2, who: string, service: string, method: string, request: object) =>
    replicas[replica - 1]!.grpc.call(`${IAM}.${service}`, method, request, { authorization: await as(who) });
  const made = async (who: string, path: string, body: unknown): Promise<string> => {
    const reply = await call(2, who, 'POST', path, { body });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.uid;
  };
  const bindingsAtTeam = async () =>
    ((await call(2, ALICE, 'GET', '/iam/v2beta1/roleBindings', { query: { 'uidp.children_of': team } })).body.roleBindings ?? [])
      .map((b: { identity: { uid: string }; role: { uid: string } }) => `${b.identity.uid} ${b.role.uid}`).sort();
  const expectEscalation = (reply: Reply, named: RegExp) => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(403);
    expect(aip(reply).byType.ErrorInfo.reason).toBe('PERMISSION_DENIED');
    expect(reply.body.message).toMatch(named);
  };
  /** A custom role at the organisation holding only what bob holds at team. */
  const listerLike = (name: string) => made(ALICE, `/iam/v2beta1/roles/${org}`, { name, capabilities: ['CAP_IAM_GROUPS_LIST'] });
  const raise = async (role: string) => {
    const reply = await call(2, ALICE, 'PATCH', `/iam/v2beta1/roles/${role}`, {
      body: { capabilities: ['CAP_IAM_GROUPS_LIST', 'CAP_IAM_GROUPS_DELETE'] }, query: { update_mask: 'capabilities' },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  };

  async function replica(store: Store, flags: string[]): Promise<Replica> {
    const config = loadConfig(['--mode', 'native', '--port', '0', '--log-level', 'info', '--auth-issuer', issuer.url, '--auth-audience', AUDIENCE, ...flags], {});
    const gateway = await buildGateway(config, { store, logStream: captureLogs().stream });
    const url = await gateway.listen({ port: 0, host: '127.0.0.1' });
    const grpc = new GrpcClient(url);
    return { client: new Client(url), grpc, close: async () => { grpc.close(); await gateway.close(); } };
  }

  beforeAll(async () => {
    issuer = await startIssuer();
    if (mode === 'native-pg') {
      await withPg(async () => {});
      schema = `v2gw_escalation_race_${process.pid}_${randomBytes(4).toString('hex')}`;
      stores = [await openStore(PG_URL, { schema, poolSize: 4 }), await openStore(PG_URL, { schema, poolSize: 4 })];
    } else {
      directory = mkdtempSync(join(tmpdir(), 'v2gw-escalation-race-'));
      stores = [await openStore(directory), await openStore(directory)];
    }
    // Replica 1 keeps a caller's grants for a minute: a revocation through replica 2 does not reach its cache.
    // Neither replica's deliverer polls during the suite: on one SQLite file each would open write transactions of its own.
    const quiet = ['--events-poll-ms', '3600000'];
    replicas = [
      await replica(gated(stores[0]!, gates), [...quiet, '--auth-grants-cache-ms', '60000']),
      await replica(stores[1]!, [...quiet, '--auth-grants-cache-ms', '0']),
    ];
    org = await made(ALICE, '/iam/v2beta1/groups', { name: 'race-org' });
    team = await made(ALICE, `/iam/v2beta1/groups/${org}`, { name: 'team' });
    owner = (await call(2, ALICE, 'GET', '/iam/v2beta1/roles', { query: { name: 'owner' } })).body.roles[0].uid;
    lister = await listerLike('lister');
    granter = await made(ALICE, `/iam/v2beta1/roles/${team}`, { name: 'granter', capabilities: GRANTER_CAPS });
    bob = await made(ALICE, `/iam/v2beta1/identities/${org}`, { name: 'bob', claimMatch: { issuer: issuer.platform.url, subject: 'bob' } });
    dave = await made(ALICE, `/iam/v2beta1/identities/${org}`, { name: 'dave', claimMatch: { issuer: issuer.platform.url, subject: 'dave' } });
    bobsBinding = await made(ALICE, `/iam/v2beta1/roleBindings/${team}`, { identityUid: bob, roleUid: granter });
  });

  afterAll(async () => {
    for (const running of replicas) await running.close();
    for (const store of stores) await store.close();
    if (schema) await withPg((client) => client.query(`drop schema if exists ${schema} cascade`));
    if (directory) rmSync(directory, { recursive: true, force: true });
    await issuer?.close();
  });

  it("judges bob moving dave's binding onto himself on the role alice gives it meanwhile: owner, refused over gRPC", async () => {
    const binding = await made(ALICE, `/iam/v2beta1/roleBindings/${team}`, { identityUid: dave, roleUid: lister });
    const refused = await rejected(interleaved(
      gates.transaction,
      // Only the identity changes: bob holds lister, the role the binding has when he asks.
      () => rpc(1, bob, 'RoleBindingsService', 'UpdateRoleBinding', { roleBinding: { uid: binding, identityUid: bob }, updateMask: { paths: ['identity_uid'] } }),
      async () => {
        const raised = await call(2, ALICE, 'PATCH', `/iam/v2beta1/roleBindings/${binding}`, { body: { roleUid: owner }, query: { update_mask: 'role_uid' } });
        expect(raised.status, JSON.stringify(raised.body)).toBe(200);
      },
    ));
    expect(refused.code, refused.message).toBe(7);
    expect(refused.message).toMatch(new RegExp(`granting role ${owner} at "${team}" needs \\d+ capabilities the caller does not hold there`));
    const now = (await call(2, ALICE, 'GET', `/iam/v2beta1/roleBindings/${binding}`)).body;
    expect([now.identity.uid, now.role.uid]).toEqual([dave, owner]);
  });

  it('judges a grant of a custom role on the capabilities alice adds to it meanwhile: a binding (REST) and an invite (gRPC), refused', async () => {
    const before = await bindingsAtTeam();
    const role = await listerLike('raised-for-binding');
    const bound = await interleaved(gates.transaction, () => call(1, bob, 'POST', `/iam/v2beta1/roleBindings/${team}`, { body: { identityUid: dave, roleUid: role } }), () => raise(role));
    expectEscalation(bound, /needs 1 capability the caller does not hold there: CAP_IAM_GROUPS_DELETE$/);
    expect(await bindingsAtTeam()).toEqual(before);

    const invited = await listerLike('raised-for-invite');
    const refused = await rejected(interleaved(
      gates.transaction,
      () => rpc(1, bob, 'GroupInvitesService', 'CreateGroupInvite', { parent: team, groupInvite: { roleUid: invited, ttl: { seconds: '3600' } } }),
      () => raise(invited),
    ));
    expect([refused.code, refused.message]).toEqual([7, expect.stringMatching(/needs 1 capability the caller does not hold there: CAP_IAM_GROUPS_DELETE$/)]);
    expect((await call(2, ALICE, 'GET', '/iam/v2beta1/groupInvites', { query: { 'uidp.children_of': team } })).body.groupInvites ?? []).toEqual([]);
  });

  // PostgreSQL's row locks only: SQLite's one connection already keeps every other writer out (BEGIN IMMEDIATE).
  const onPostgres = mode === 'native-pg' ? it : undefined;
  onPostgres?.('makes a revocation of bob\'s binding wait while his grant, judged on it, is being written', async () => {
    let revoked!: Promise<Reply>;
    // bob's grant is judged, and held just before its row is written, while alice revokes what it was judged on.
    const bound = await interleaved(gates.write, () => call(1, bob, 'POST', `/iam/v2beta1/roleBindings/${team}`, { body: { identityUid: dave, roleUid: lister } }), async () => {
      revoked = call(2, ALICE, 'DELETE', `/iam/v2beta1/roleBindings/${bobsBinding}`);
      if (!(await waitsOnLock(PG_URL, schema!, revoked))) throw new Error('the revocation committed while a grant judged on what it revoked was still being written');
    });
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    expect((await revoked).status).toBe(200);
    expect(await bindingsAtTeam()).toContain(`${dave} ${lister}`);
    expect(await bindingsAtTeam()).not.toContain(`${bob} ${granter}`);
    bobsBinding = await made(ALICE, `/iam/v2beta1/roleBindings/${team}`, { identityUid: bob, roleUid: granter });
  });

  it("refuses bob, revoked through the other replica while this one's cache still holds his grants, every grant: binding, batch, invite, provider, custom role", async () => {
    // bob's grants are read, and kept for a minute, by replica 1.
    expect((await call(1, bob, 'GET', `/iam/v2beta1/groups/${team}`)).status).toBe(200);
    expect((await call(2, ALICE, 'DELETE', `/iam/v2beta1/roleBindings/${bobsBinding}`)).status).toBe(200);
    const before = await bindingsAtTeam();
    // bob now holds nothing: lister's one capability is what he lacks.
    const lacks = /needs 1 capability the caller does not hold there: CAP_IAM_GROUPS_LIST$/;
    expectEscalation(await call(1, bob, 'POST', `/iam/v2beta1/roleBindings/${team}`, { body: { identityUid: bob, roleUid: lister } }), lacks);
    const batch = await rejected(rpc(1, bob, 'RoleBindingsService', 'BatchCreateRoleBindings', { parent: team, roleUid: lister, requests: [{ roleBinding: { identityUid: dave } }] }));
    expect([batch.code, batch.message]).toEqual([7, expect.stringMatching(lacks)]);
    expectEscalation(await call(1, bob, 'POST', `/iam/v2beta1/groupInvites/${team}`, { body: { roleUid: lister, ttl: '3600s' } }), lacks);
    const provider = { name: 'sso', defaultRole: lister, oidc: { issuer: 'https://sso.example', clientId: 'c', clientSecret: 's' } };
    expectEscalation(await call(1, bob, 'POST', `/iam/v2beta1/identityProviders/${team}`, { body: provider }), lacks);
    expectEscalation(await call(1, bob, 'POST', `/iam/v2beta1/roles/${team}`, { body: { name: 'mine', capabilities: ['CAP_IAM_GROUPS_LIST'] } }), lacks);
    expect(await bindingsAtTeam()).toEqual(before);
    bobsBinding = await made(ALICE, `/iam/v2beta1/roleBindings/${team}`, { identityUid: bob, roleUid: granter });
  });
});
