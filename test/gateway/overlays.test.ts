/**
 * Overlays and OverlayBindings, over REST and gRPC, in every mode: v1 has
 * neither, so translate mode keeps them in the store beside v1's groups and
 * repos (a group or repo named by one must exist in v1). Rules from the contract: packages-only
 * config, unique names per group, a binding references an overlay by uid or
 * name within the organisation, shows it expanded, and holds it against delete.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { ALL_MODES, describeModes } from '../support/modes.ts';
import { aip } from '../support/stack.ts';

const OVERLAYS = 'chainguard.platform.registry.v2beta1.OverlaysService';
const BINDINGS = 'chainguard.platform.registry.v2beta1.OverlayBindingsService';

describeModes('overlays and overlay bindings', (stack) => {
  let grpc: GrpcClient;
  let org: string;
  let repo: string;
  const client = () => stack().client;
  beforeAll(async () => {
    grpc = new GrpcClient(stack().url);
    org = (await client().post('/iam/v2beta1/groups', { name: 'overlay-org' })).body.uid;
    repo = await stack().fixtures.repo(org, { name: 'app' });
  });
  afterAll(() => grpc?.close());

  let overlay: any;
  it('creates an overlay of packages under a group, and refuses any other config or a taken name', async () => {
    const made = await client().post(`/registry/v2beta1/overlays/${org}`, { name: 'tools', config: { contents: { packages: ['curl', 'jq'] } } });
    expect(made.status).toBe(200);
    overlay = made.body;
    expect(overlay.uid.startsWith(`${org}/`)).toBe(true);
    expect(overlay.config.contents.packages).toEqual(['curl', 'jq']);
    const env = await client().post(`/registry/v2beta1/overlays/${org}`, { name: 'env', config: { contents: { packages: ['x'] }, environment: { A: 'b' } } });
    expect(env.status).toBe(400);
    expect(aip(env).byType.BadRequest.fieldViolations[0].field).toMatch(/^config/);
    const none = await grpc.call(OVERLAYS, 'CreateOverlay', { parent: org, overlay: { name: 'empty', config: { contents: { packages: [] } } } }).catch((e) => e);
    expect(none.code).toBe(3);
    const taken = await client().post(`/registry/v2beta1/overlays/${org}`, { name: 'tools', config: { contents: { packages: ['x'] } } });
    expect(taken.status).toBe(409);
    expect((await grpc.call(OVERLAYS, 'GetOverlay', { uid: overlay.uid })).name).toBe('tools');
    const listed = await client().get('/registry/v2beta1/overlays', { 'uidp.children_of': org, name: 'tools' });
    expect(listed.body.overlays.map((o: any) => o.uid)).toEqual([overlay.uid]);
  });

  let binding: any;
  it('binds an overlay to a repo by name or uid, showing the overlay expanded', async () => {
    const byName = await client().post(`/registry/v2beta1/overlayBindings/${repo}`, { overlay: 'tools', tags: ['latest', 'v1'] });
    expect(byName.status).toBe(200);
    binding = byName.body;
    expect(binding.uid.startsWith(`${repo}/`)).toBe(true);
    expect(binding).toMatchObject({ repo, tags: ['latest', 'v1'], overlay: { uid: overlay.uid, name: 'tools', config: { contents: { packages: ['curl', 'jq'] } } } });
    const byUid = await grpc.call(BINDINGS, 'CreateOverlayBinding', { parent: repo, overlay: overlay.uid, tags: ['stable'] });
    expect(byUid.overlay.name).toBe('tools');
    const listed = await client().get('/registry/v2beta1/overlayBindings', { overlay: overlay.uid });
    expect(listed.body.overlayBindings).toHaveLength(2);
    expect((await client().get(`/registry/v2beta1/overlayBindings/${binding.uid}`)).body).toEqual(binding);
  });

  it('refuses a binding without tags, with a bad tag, or to an overlay outside the organisation', async () => {
    expect((await client().post(`/registry/v2beta1/overlayBindings/${repo}`, { overlay: 'tools', tags: [] })).status).toBe(400);
    const badTag = await client().post(`/registry/v2beta1/overlayBindings/${repo}`, { overlay: 'tools', tags: ['-nope'] });
    expect(aip(badTag).byType.BadRequest.fieldViolations[0].field).toBe('tags[0]');
    const other = (await client().post('/iam/v2beta1/groups', { name: 'other-org' })).body.uid;
    const foreign = (await client().post(`/registry/v2beta1/overlays/${other}`, { name: 'foreign', config: { contents: { packages: ['x'] } } })).body;
    expect((await client().post(`/registry/v2beta1/overlayBindings/${repo}`, { overlay: foreign.uid, tags: ['a'] })).status).toBe(404);
    expect((await client().post(`/registry/v2beta1/overlayBindings/${repo}`, { overlay: 'foreign', tags: ['a'] })).status).toBe(404);
  });

  it('holds a bound overlay against delete; once unbound it goes, and a group with overlays cannot', async () => {
    const held = await client().delete(`/registry/v2beta1/overlays/${overlay.uid}`);
    expect(held.status).toBe(400);
    expect(aip(held).code).toBe(9);
    expect((await client().delete(`/iam/v2beta1/groups/${org}`)).status).toBe(400);
    for (const b of (await client().get('/registry/v2beta1/overlayBindings', { overlay: overlay.uid })).body.overlayBindings) {
      expect((await client().delete(`/registry/v2beta1/overlayBindings/${b.uid}`)).status).toBe(200);
    }
    expect((await client().delete(`/registry/v2beta1/overlays/${overlay.uid}`)).status).toBe(200);
    expect((await client().get(`/registry/v2beta1/overlays/${overlay.uid}`)).status).toBe(404);
  });

  it('refuses an overlay under a group, or a binding to a repo, that does not exist (in v1, in translate mode)', async () => {
    const missingGroup = `${org}/00000000000000aa`;
    const overlayThere = await client().post(`/registry/v2beta1/overlays/${missingGroup}`, { name: 'x', config: { contents: { packages: ['x'] } } });
    expect(overlayThere.status).toBe(404);
    expect(aip(overlayThere).byType.ResourceInfo.resourceName).toBe(missingGroup);
    const missingRepo = `${org}/00000000000000bb`;
    const bound = await rejected(grpc.call(BINDINGS, 'CreateOverlayBinding', { parent: missingRepo, overlay: 'tools', tags: ['t'] }));
    expect(bound.code).toBe(5);
  });

  it('refuses to delete a group whose only children are overlays, naming them', async () => {
    const team = (await client().post(`/iam/v2beta1/groups/${org}`, { name: 'overlay-team' })).body.uid;
    const held = (await client().post(`/registry/v2beta1/overlays/${team}`, { name: 'team-tools', config: { contents: { packages: ['x'] } } })).body;
    const refused = await client().delete(`/iam/v2beta1/groups/${team}`);
    expect(refused.status).toBe(400);
    expect(aip(refused).code).toBe(9);
    expect(aip(refused).message).toContain('1 overlays');
    expect((await client().delete(`/registry/v2beta1/overlays/${held.uid}`)).status).toBe(200);
    expect((await client().delete(`/iam/v2beta1/groups/${team}`)).status).toBe(200);
  });

  it("a repo's bindings go with the repo", async () => {
    const spare = (await client().post(`/registry/v2beta1/overlays/${org}`, { name: 'spare', config: { contents: { packages: ['x'] } } })).body;
    const gone = await stack().fixtures.repo(org, { name: 'short-lived' });
    const bound = (await client().post(`/registry/v2beta1/overlayBindings/${gone}`, { overlay: spare.uid, tags: ['t'] })).body;
    expect((await client().delete(`/registry/v2beta1/repos/${gone}`)).status).toBe(200);
    expect((await client().get(`/registry/v2beta1/overlayBindings/${bound.uid}`)).status).toBe(404);
    expect((await client().delete(`/registry/v2beta1/overlays/${spare.uid}`)).status).toBe(200);
  });
}, { modes: [...ALL_MODES, 'translate-pg'] });
