/**
 * Translate mode authorizes what its store keeps (overlays, overlay bindings, identity metadata) as
 * native mode does, by the caller and capabilities v1 states at GET /auth/v1/ok, over REST and gRPC.
 * The emulator's /auth/v1/ok grants each token its identity's role bindings:
 *
 * - `good`: alice, owner of organisation A;
 * - `attacker`: mallory, owner of organisation B only (a real v1 user, with nothing at A);
 * - `reader`: rita, viewer at A (may list overlays, not edit them);
 * - `sub`: bob, editor at A/team only (authorization below the organisation);
 * - `stranger`: a token v1 refuses.
 *
 * And when v1 cannot answer /auth/v1/ok (404, 503, a timeout), what the store keeps is refused.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEmulator, type AuthSettings, type EmulatorState } from '../../../src/emulator/v1/index.ts';
import { GrpcClient, rejected } from '../../support/grpc.ts';
import { jwt } from '../../support/jwt.ts';
import { aip, Client, startGateway } from '../../support/stack.ts';

const OVERLAYS = 'chainguard.platform.registry.v2beta1.OverlaysService';
const BINDINGS = 'chainguard.platform.registry.v2beta1.OverlayBindingsService';
const FEED = 'chainguard.platform.advisory.v2beta1.SecurityAdvisoryService';
const bearer = (token: string) => `Bearer ${token}`;
const packages = (name: string) => ({ name, config: { contents: { packages: ['curl'] } } });

describe('translate mode authorizes what its store keeps by what v1 states at /auth/v1/ok', () => {
  let emulator: FastifyInstance;
  let state: EmulatorState;
  const auth: AuthSettings = { demoCaller: false };
  /** /auth/v1/ok calls the emulator answered; `hangMs` delays its answers. */
  const validations = { count: 0, hangMs: 0 };
  /** Caching grants for a minute; and one asking v1 on every request, with a short v1 timeout. */
  let cached: { gateway: FastifyInstance; url: string };
  let uncached: { gateway: FastifyInstance; url: string };
  /** Keeping grants for a quarter of a second. */
  let brief: { gateway: FastifyInstance; url: string };
  let rest: Client;
  let restUncached: Client;
  let grpc: GrpcClient;
  let grpcUncached: GrpcClient;
  const as = (token: string) => ({ authorization: bearer(token) });

  let orgA: string;
  let team: string;
  let other: string;
  let orgB: string;
  let repoA: string;
  const overlays: Record<'a' | 'team' | 'teamSub' | 'other' | 'b', string> = { a: '', team: '', teamSub: '', other: '', b: '' };
  let bindingA: string;
  let alice: string;
  let bob: string;
  let rita: string;

  beforeAll(async () => {
    const built = buildEmulator({ seed: 'none', acceptToken: (token) => token !== 'stranger', auth });
    emulator = built.app;
    state = built.state;
    emulator.addHook('onRequest', async (request) => {
      if (!request.url.startsWith('/auth/v1/ok')) return;
      validations.count++;
      if (validations.hangMs > 0) await sleep(validations.hangMs);
    });
    const emulatorUrl = await emulator.listen({ port: 0, host: '127.0.0.1' });

    const user = (name: string) => state.createIdentity(null, { name, claimMatch: { issuer: 'https://issuer.example', subject: name } }).id;
    let mallory: string;
    [alice, mallory, rita, bob] = ['alice', 'mallory', 'rita', 'bob'].map(user) as [string, string, string, string];
    orgA = state.createGroup(null, { name: 'org-a' }).id;
    team = state.createGroup(orgA, { name: 'team' }).id;
    const teamSub = state.createGroup(team, { name: 'sub' }).id;
    other = state.createGroup(orgA, { name: 'other' }).id;
    orgB = state.createGroup(null, { name: 'org-b' }).id;
    const roles = state.builtinRoles;
    state.createRoleBinding(orgA, { identity: alice, role: roles.owner });
    state.createRoleBinding(orgB, { identity: mallory, role: roles.owner });
    state.createRoleBinding(orgA, { identity: rita, role: roles.viewer });
    state.createRoleBinding(team, { identity: bob, role: roles.editor });
    auth.tokens = { good: alice, attacker: mallory, reader: rita, sub: bob };
    repoA = state.createRepo(orgA, { name: 'app' }).id;

    cached = await startGateway(emulatorUrl, ['--auth-grants-cache-ms', '60000']);
    uncached = await startGateway(emulatorUrl, ['--auth-grants-cache-ms', '0', '--v1-timeout-ms', '300']);
    brief = await startGateway(emulatorUrl, ['--auth-grants-cache-ms', '250']);
    rest = new Client(cached.url);
    restUncached = new Client(uncached.url);
    grpc = new GrpcClient(cached.url);
    grpcUncached = new GrpcClient(uncached.url);

    const create = async (parent: string, name: string, token: string) => {
      const made = await rest.post(`/registry/v2beta1/overlays/${parent}`, packages(name), as(token));
      expect(made.status, made.text).toBe(200);
      return made.body.uid as string;
    };
    overlays.a = await create(orgA, 'at-a', 'good');
    overlays.team = await create(team, 'at-team', 'good');
    overlays.teamSub = await create(teamSub, 'at-team-sub', 'good');
    overlays.other = await create(other, 'at-other', 'good');
    overlays.b = await create(orgB, 'at-b', 'attacker');
    const bound = await rest.post(`/registry/v2beta1/overlayBindings/${repoA}`, { overlay: overlays.a, tags: ['latest'] }, as('good'));
    expect(bound.status, bound.text).toBe(200);
    bindingA = bound.body.uid;
  });
  afterAll(async () => {
    grpc?.close();
    grpcUncached?.close();
    await cached?.gateway.close();
    await uncached?.gateway.close();
    await brief?.gateway.close();
    await emulator?.close();
  });

  it("lists only the overlays of the caller's own organisation, totalCount counting those alone (REST and gRPC)", async () => {
    const listed = await rest.get('/registry/v2beta1/overlays', {}, as('attacker'));
    expect(listed.status).toBe(200);
    expect(listed.body.overlays.map((o: any) => o.uid)).toEqual([overlays.b]);
    expect(listed.body.totalCount).toBe('1');
    const overGrpc = await grpc.call(OVERLAYS, 'ListOverlays', {}, as('attacker'));
    expect(overGrpc.overlays.map((o: any) => o.uid)).toEqual([overlays.b]);
    expect(Number(overGrpc.totalCount)).toBe(1);
    // The owner of A sees A's four, not B's.
    const owner = await rest.get('/registry/v2beta1/overlays', {}, as('good'));
    expect(owner.body.overlays.map((o: any) => o.uid).sort()).toEqual([overlays.a, overlays.team, overlays.teamSub, overlays.other].sort());
    expect(owner.body.totalCount).toBe('4');
    // Bindings likewise: A's binding is not the attacker's to list.
    expect((await rest.get('/registry/v2beta1/overlayBindings', {}, as('attacker'))).body.overlayBindings).toEqual([]);
    expect((await grpc.call(BINDINGS, 'ListOverlayBindings', {}, as('good'))).overlayBindings.map((b: any) => b.uid)).toEqual([bindingA]);
  });

  it("cannot read, delete or bind another organisation's overlay, and cannot tell a missing one from a hidden one", async () => {
    const hidden = await rest.get(`/registry/v2beta1/overlays/${overlays.a}`, {}, as('attacker'));
    const missing = await rest.get(`/registry/v2beta1/overlays/${orgA}/0123456789abcdef`, {}, as('attacker'));
    expect([hidden.status, missing.status]).toEqual([403, 403]);
    expect(aip(missing).message.replace(`${orgA}/0123456789abcdef`, 'X')).toBe(aip(hidden).message.replace(overlays.a, 'X'));
    const hiddenGrpc = await rejected(grpc.call(OVERLAYS, 'GetOverlay', { uid: overlays.a }, as('attacker')));
    const missingGrpc = await rejected(grpc.call(OVERLAYS, 'GetOverlay', { uid: `${orgA}/0123456789abcdef` }, as('attacker')));
    expect([hiddenGrpc.code, missingGrpc.code]).toEqual([7, 7]);

    expect((await rest.call('DELETE', `/registry/v2beta1/overlays/${overlays.other}`, as('attacker'))).status).toBe(403);
    expect((await rejected(grpc.call(OVERLAYS, 'DeleteOverlay', { uid: overlays.other }, as('attacker')))).code).toBe(7);
    expect((await rest.call('DELETE', `/registry/v2beta1/overlayBindings/${bindingA}`, as('attacker'))).status).toBe(403);
    const bind = await rest.post(`/registry/v2beta1/overlayBindings/${repoA}`, { overlay: overlays.a, tags: ['mine'] }, as('attacker'));
    expect(bind.status).toBe(403);
    expect((await rejected(grpc.call(BINDINGS, 'CreateOverlayBinding', { parent: repoA, overlay: overlays.a, tags: ['mine'] }, as('attacker')))).code).toBe(7);
    // Nothing changed: the owner still has them.
    expect((await rest.get(`/registry/v2beta1/overlays/${overlays.other}`, {}, as('good'))).status).toBe(200);
    expect((await rest.get('/registry/v2beta1/overlayBindings', {}, as('good'))).body.overlayBindings.map((b: any) => b.uid)).toEqual([bindingA]);
  });

  it('needs the edit capability to create or delete: read access to the group is not enough (REST and gRPC)', async () => {
    expect((await rest.get(`/registry/v2beta1/overlays/${overlays.a}`, {}, as('reader'))).status).toBe(200);
    const made = await rest.post(`/registry/v2beta1/overlays/${orgA}`, packages('by-reader'), as('reader'));
    expect(made.status).toBe(403);
    expect(aip(made).message).toContain('CAP_REGISTRY_OVERLAYS_EDIT');
    expect((await rejected(grpc.call(OVERLAYS, 'CreateOverlay', { parent: orgA, overlay: packages('by-reader') }, as('reader')))).code).toBe(7);
    expect((await rest.call('DELETE', `/registry/v2beta1/overlays/${overlays.other}`, as('reader'))).status).toBe(403);
  });

  it('a caller bound below the organisation sees and edits exactly that sub-tree', async () => {
    const listed = await rest.get('/registry/v2beta1/overlays', {}, as('sub'));
    expect(listed.body.overlays.map((o: any) => o.uid).sort()).toEqual([overlays.team, overlays.teamSub].sort());
    expect(listed.body.totalCount).toBe('2');
    const overGrpc = await grpc.call(OVERLAYS, 'ListOverlays', { uidp: { descendantsOf: orgA } }, as('sub'));
    expect(overGrpc.overlays.map((o: any) => o.uid).sort()).toEqual([overlays.team, overlays.teamSub].sort());
    expect((await rest.get(`/registry/v2beta1/overlays/${overlays.teamSub}`, {}, as('sub'))).status).toBe(200);
    for (const uid of [overlays.a, overlays.other]) expect((await rest.get(`/registry/v2beta1/overlays/${uid}`, {}, as('sub'))).status).toBe(403);
    expect((await rest.post(`/registry/v2beta1/overlays/${team}`, packages('by-bob'), as('sub'))).status).toBe(200);
    expect((await rest.post(`/registry/v2beta1/overlays/${orgA}`, packages('by-bob'), as('sub'))).status).toBe(403);
    expect((await rejected(grpc.call(OVERLAYS, 'CreateOverlay', { parent: other, overlay: packages('by-bob') }, as('sub')))).code).toBe(7);
  });

  it('a role binding made through the gateway counts on the next request, whatever was kept', async () => {
    expect((await rest.post(`/registry/v2beta1/overlays/${other}`, packages('by-rita'), as('reader'))).status).toBe(403);
    const bound = await rest.post(`/iam/v2beta1/roleBindings/${other}`, { identityUid: rita, roleUid: state.builtinRoles.editor }, as('good'));
    expect(bound.status, bound.text).toBe(200);
    expect((await rest.post(`/registry/v2beta1/overlays/${other}`, packages('by-rita'), as('reader'))).status).toBe(200);
    expect((await rest.post(`/registry/v2beta1/overlays/${orgA}`, packages('by-rita'), as('reader'))).status).toBe(403);
  });

  it("identity metadata is written for the subject v1 states, not the one the token claims (REST and gRPC)", async () => {
    const own = await rest.call('PATCH', '/iam/v2beta1/identities:updateIdentityMetadata', { body: { identityMetadata: { company: 'A' } }, ...as('good') });
    expect(own.status, own.text).toBe(200);
    expect(own.body).toMatchObject({ uid: alice, name: 'alice', company: 'A' });
    // A token whose own `sub` says alice, which v1 (told so) states is bob's.
    const claiming = jwt({ iss: 'https://issuer.example', sub: alice, given_name: 'Bob' });
    auth.tokens![claiming] = bob;
    const written = await grpc.call('chainguard.platform.iam.v2beta1.IdentitiesService', 'UpdateIdentityMetadata', { identityMetadata: { company: 'B' } }, as(claiming));
    expect(written).toMatchObject({ uid: bob, name: 'bob', company: 'B', givenName: 'Bob' });
    expect((await rest.call('PATCH', '/iam/v2beta1/identities:updateIdentityMetadata', { body: { identityMetadata: {} }, ...as('good') })).body.company).toBe('A');
  });

  it('a token v1 refuses is UNAUTHENTICATED', async () => {
    const refused = await rest.get('/registry/v2beta1/overlays', {}, as('stranger'));
    expect(refused.status).toBe(401);
    expect(aip(refused).message).toContain('/auth/v1/ok');
    expect((await rejected(grpc.call(OVERLAYS, 'ListOverlays', {}, as('stranger')))).code).toBe(16);
  });

  it('asks v1 once per token within the grants lifetime, and again after it', async () => {
    // A write drops what was kept; then reads by two tokens cost one WhoAmI each.
    expect((await rest.post(`/registry/v2beta1/overlays/${orgA}`, packages('cache-probe'), as('good'))).status).toBe(200);
    validations.count = 0;
    for (let i = 0; i < 3; i++) {
      expect((await rest.get(`/registry/v2beta1/overlays/${overlays.a}`, {}, as('good'))).status).toBe(200);
      await grpc.call(OVERLAYS, 'ListOverlays', {}, as('good'));
      expect((await rest.get('/registry/v2beta1/overlays', {}, as('attacker'))).status).toBe(200);
    }
    expect(validations.count).toBe(2);
    // Without a lifetime, every request asks.
    validations.count = 0;
    for (let i = 0; i < 3; i++) expect((await restUncached.get('/registry/v2beta1/overlays', {}, as('good'))).status).toBe(200);
    expect(validations.count).toBe(3);
    // No longer than the lifetime.
    const briefly = new Client(brief.url);
    validations.count = 0;
    for (let i = 0; i < 2; i++) expect((await briefly.get('/registry/v2beta1/overlays', {}, as('good'))).status).toBe(200);
    expect(validations.count).toBe(1);
    await sleep(400);
    expect((await briefly.get('/registry/v2beta1/overlays', {}, as('good'))).status).toBe(200);
    expect(validations.count).toBe(2);
  });

  describe('when v1 cannot say what the caller may do, nothing the store keeps is served', () => {
    const reset = () => {
      auth.failWith = undefined;
      validations.hangMs = 0;
    };
    beforeAll(reset);
    afterAll(reset);

    it('404 from /auth/v1/ok: PERMISSION_DENIED, saying why (REST and gRPC)', async () => {
      auth.failWith = 404;
      const listed = await restUncached.get('/registry/v2beta1/overlays', {}, as('good'));
      expect(listed.status).toBe(403);
      expect(aip(listed).message).toMatch(/does not answer GET \/auth\/v1\/ok \(404\)/);
      expect((await restUncached.post(`/registry/v2beta1/overlays/${orgA}`, packages('while-404'), as('good'))).status).toBe(403);
      expect((await rejected(grpcUncached.call(OVERLAYS, 'GetOverlay', { uid: overlays.a }, as('good')))).code).toBe(7);
      // What v1 serves is v1's to judge, and still served.
      expect((await restUncached.get(`/iam/v2beta1/groups/${orgA}`, {}, as('good'))).status).toBe(200);
      auth.failWith = undefined;
      expect((await restUncached.get('/registry/v2beta1/overlays', {}, as('good'))).status).toBe(200);
    });

    it('503 from /auth/v1/ok: UNAVAILABLE, saying why (REST and gRPC)', async () => {
      auth.failWith = 503;
      const listed = await restUncached.get('/registry/v2beta1/overlays', {}, as('good'));
      expect(listed.status).toBe(503);
      expect(aip(listed).message).toMatch(/v1 could not state the caller's capabilities/);
      expect((await rejected(grpcUncached.call(BINDINGS, 'ListOverlayBindings', {}, as('good')))).code).toBe(14);
      auth.failWith = undefined;
    });

    it('no answer from /auth/v1/ok within the v1 timeout: UNAVAILABLE', async () => {
      validations.hangMs = 1000;
      const listed = await restUncached.get('/registry/v2beta1/overlays', {}, as('good'));
      expect(listed.status).toBe(503);
      expect(aip(listed).message).toMatch(/did not answer within 300 ms/);
      expect((await rejected(grpcUncached.call(OVERLAYS, 'GetOverlay', { uid: overlays.a }, as('good')))).code).toBe(14);
      validations.hangMs = 0;
    });
  });

  it('serves the methods v1 marks disabled without a token (REST and gRPC)', async () => {
    state.advisoryFeed.addDocument({ id: 'openssl', advisories: [] });
    state.advisoryFeed.addMetadata({ id: 'CVE-2026-0001', summary: 's', details: 'd', references: [], severity: [] });
    const documents = await rest.get('/advisory/v2beta1/documents', {}, { authorization: null });
    expect(documents.status, documents.text).toBe(200);
    expect(documents.body.documents.map((d: any) => d.id)).toEqual(['openssl']);
    const metadata = await grpc.call(FEED, 'ListVulnerabilityMetadata', {}, { authorization: null });
    expect(metadata.vulnerabilityMetadata.map((m: any) => m.id)).toEqual(['CVE-2026-0001']);
  });
});
