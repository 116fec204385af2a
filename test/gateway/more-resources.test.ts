/**
 * The resources beyond the tutorial, as a v2 client sees them, in every mode:
 * identity providers (write-only secret, immutable rule), account associations
 * (uid = group), group invites (one-time code, input-only ttl, newest first),
 * batch create, identity lookup, tags (hidden shapes unless included) and
 * advisories (renamed shapes, pluralised filters, query, paging).
 */
import { expect, it } from 'vitest';
import { describeModes } from '../support/modes.ts';
import { ROOT_UID, TIMESTAMP_MS, aip } from '../support/stack.ts';
import { nanosOf } from '../support/instant.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const names = (rows: any[]) => rows.map((row) => row.name);

describeModes('more v2beta1 resources', (stack) => {
  const client = () => stack().client;
  let org = '';
  let viewer = '';
  let editor = '';

  it('starts from an organisation and the built-in roles', async () => {
    org = (await client().post('/iam/v2beta1/groups', { name: 'more-org' })).body.uid;
    expect(org).toMatch(ROOT_UID);
    const roles = (await client().get('/iam/v2beta1/roles', { 'uidp.in_root': true })).body.roles;
    viewer = roles.find((r: any) => r.name === 'viewer').uid;
    editor = roles.find((r: any) => r.name === 'editor').uid;
    expect(viewer).toMatch(ROOT_UID);
  });

  it('identity providers: no secret ever shown, immutable correlation rule, kept times', async () => {
    const created = await client().post(`/iam/v2beta1/identityProviders/${org}`, {
      name: 'sso', defaultRole: viewer,
      oidc: { issuer: 'https://login.example', clientId: 'c1', clientSecret: 'sekrit', correlationRule: 'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID' },
    });
    expect(created.status).toBe(200);
    const idp = created.body;
    expect(idp.oidc).not.toHaveProperty('clientSecret');
    expect(idp.createTime).toMatch(TIMESTAMP_MS);
    const path = `/iam/v2beta1/identityProviders/${idp.uid}`;
    expect(JSON.stringify((await client().get('/iam/v2beta1/identityProviders', { 'uidp.children_of': org })).body)).not.toContain('sekrit');

    await pause(3);
    const patched = await client().patch(path, { oidc: { clientId: 'c2' } });
    expect(patched.body.oidc).toMatchObject({ clientId: 'c2', correlationRule: 'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID' });
    expect(patched.body.createTime).toBe(idp.createTime);
    expect(nanosOf(patched.body.updateTime)).toBeGreaterThan(nanosOf(idp.updateTime));

    const changed = await client().patch(path, { oidc: { correlationRule: 'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID' } });
    expect(aip(changed).byType.BadRequest.fieldViolations[0].field).toBe('oidc.correlationRule');
    const invalid = await client().post(`/iam/v2beta1/identityProviders/${org}`, { name: 'x', defaultRole: viewer });
    expect(aip(invalid).byType.BadRequest.fieldViolations.map((v: any) => v.field)).toContain('name');
    expect((await client().delete(path)).status).toBe(200);
    expect((await client().get(path)).status).toBe(404);
  });

  it('account associations: the uid is the group; ordered by group; idempotent delete', async () => {
    const groups: string[] = [];
    for (const name of ['aa-1', 'aa-2']) groups.push((await client().post(`/iam/v2beta1/groups/${org}`, { name })).body.uid);
    for (const group of groups) {
      const made = await client().post(`/iam/v2beta1/accountAssociations/${group}`, { name: `assoc-${group.slice(-4)}`, amazon: { account: '123456789012' } });
      expect(made.status).toBe(200);
      expect(made.body.uid).toBe(group);
      expect(made.body.createTime).toMatch(TIMESTAMP_MS);
    }
    const listed = await client().get('/iam/v2beta1/accountAssociations', { 'uidp.children_of': org });
    expect(listed.body.accountAssociations.map((a: any) => a.uid)).toEqual([...groups].sort());
    const desc = await client().get('/iam/v2beta1/accountAssociations', { 'uidp.children_of': org, order_by: 'group desc' });
    expect(desc.body.accountAssociations.map((a: any) => a.uid)).toEqual([...groups].sort().reverse());

    const patched = await client().patch(`/iam/v2beta1/accountAssociations/${groups[0]}`, { google: { projectId: 'p', projectNumber: '1' } });
    expect(patched.body).toMatchObject({ amazon: { account: '123456789012' }, google: { projectId: 'p', projectNumber: '1' } });
    for (let i = 0; i < 2; i++) expect((await client().delete(`/iam/v2beta1/accountAssociations/${groups[0]}`)).status).toBe(200);
    expect((await client().get(`/iam/v2beta1/accountAssociations/${groups[0]}`)).status).toBe(404);
  });

  it('group invites: the code only once, the role hydrated, ttl never shown, newest first', async () => {
    const group = (await client().post(`/iam/v2beta1/groups/${org}`, { name: 'invites' })).body.uid;
    const made: any[] = [];
    for (const ttl of ['600s', '1200s']) {
      const reply = await client().post(`/iam/v2beta1/groupInvites/${group}`, { roleUid: viewer, ttl, email: 'a@example.com' });
      expect(reply.status).toBe(200);
      made.push(reply.body);
      await pause(3);
    }
    const [first] = made;
    expect(first.code).not.toBe('');
    expect(first).not.toHaveProperty('ttl');
    expect(first.role).toMatchObject({ uid: viewer, name: 'viewer' });
    expect(first.role.capabilities).toContain('CAP_IAM_GROUPS_LIST');
    expect(Date.parse(first.expirationTime) - Date.parse(first.createTime)).toBeGreaterThanOrEqual(599_000);

    const got = await client().get(`/iam/v2beta1/groupInvites/${first.uid}`);
    expect(got.body).toMatchObject({ uid: first.uid, code: '', email: 'a@example.com', roleUid: viewer, keyId: first.keyId });
    const listed = await client().get('/iam/v2beta1/groupInvites', { 'uidp.children_of': group });
    expect(listed.body.groupInvites.map((i: any) => i.uid)).toEqual(made.map((i) => i.uid).reverse());

    const noTtl = await client().post(`/iam/v2beta1/groupInvites/${group}`, { roleUid: viewer });
    expect(aip(noTtl).byType.BadRequest.fieldViolations[0].field).toBe('ttl');
    const del = await client().delete(`/iam/v2beta1/groupInvites/${first.uid}`);
    expect(del.status).toBe(200);
    expect((await client().delete(`/iam/v2beta1/groupInvites/${first.uid}`)).status).toBe(200);
  });

  it('roleBindings:batchCreate: all or none, inherited role, request order', async () => {
    const group = (await client().post(`/iam/v2beta1/groups/${org}`, { name: 'batch' })).body.uid;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await client().post(`/iam/v2beta1/identities/${group}`, { name: `member-${i}`, claimMatch: { issuer: 'https://i', subject: `m${i}` } })).body.uid);
    }
    const bad = await client().post('/iam/v2beta1/roleBindings:batchCreate', {
      parent: group, roleUid: viewer, requests: [{ roleBinding: { identityUid: ids[0] } }, { roleBinding: { identityUid: ids[1], roleUid: editor } }],
    });
    expect(aip(bad).byType.BadRequest.fieldViolations[0].field).toBe('requests[1].roleBinding.roleUid');
    expect((await client().get('/iam/v2beta1/roleBindings', { 'uidp.children_of': group })).body.totalCount).toBe('0');

    const ok = await client().post('/iam/v2beta1/roleBindings:batchCreate', {
      parent: group, roleUid: viewer, requests: ids.map((identityUid) => ({ roleBinding: { identityUid } })),
    });
    expect(ok.status).toBe(200);
    expect(ok.body.roleBindings.map((b: any) => b.identity.uid)).toEqual(ids);
    expect(ok.body.roleBindings.map((b: any) => b.identity.name)).toEqual(['member-0', 'member-1', 'member-2']);
    expect(ok.body.roleBindings.every((b: any) => b.role.uid === viewer && b.group.uid === group)).toBe(true);
  });

  it('identities:lookupIdentity: a stable uid, registered or not', async () => {
    const query = { issuer: 'https://accounts.example', subject: 'nobody-yet' };
    const first = await client().get('/iam/v2beta1/identities:lookupIdentity', query);
    expect(first.status).toBe(200);
    expect(first.body.uid).toMatch(ROOT_UID);
    expect((await client().get('/iam/v2beta1/identities:lookupIdentity', query)).body.uid).toBe(first.body.uid);
    expect((await client().get('/iam/v2beta1/identities:lookupIdentity', { issuer: 'https://x' })).status).toBe(400);
  });

  it('tags: referrer, dated and epoch tags hidden unless included; Get by uid', async () => {
    const repo = await stack().fixtures.repo(org, { name: 'app' });
    const tagNames = ['latest', '1.0', 'sha256-abc.sig', 'build-20260102', '1.0-r3'];
    for (const [i, name] of tagNames.entries()) await stack().fixtures.tag(repo, { name, digest: `sha256:${String(i).repeat(64)}` });
    const list = (query: Record<string, unknown> = {}) => client().get('/registry/v2beta1/tags', { 'uidp.children_of': repo, order_by: 'name', ...query } as never);
    expect(names((await list()).body.tags)).toEqual(['1.0', 'latest']);
    expect(names((await list({ include_referrers: true, include_dates: true, include_epochs: true })).body.tags))
      .toEqual(['1.0', '1.0-r3', 'build-20260102', 'latest', 'sha256-abc.sig']);
    const tag = (await list({ name: 'latest' })).body.tags[0];
    expect(Object.keys(tag).sort()).toEqual(['bundles', 'deprecated', 'digest', 'name', 'uid', 'updateTime']);
    expect((await client().get(`/registry/v2beta1/tags/${tag.uid}`)).body).toEqual(tag);
  });

  it('advisories: v2 shapes, pluralised filters, query, paging', async () => {
    const scope = (await client().post(`/iam/v2beta1/groups/${org}`, { name: 'vulns' })).body.uid;
    const made: string[] = [];
    for (let i = 0; i < 12; i++) {
      made.push(await stack().fixtures.advisory(scope, {
        author: 'alice', artifactType: 'apk', artifactName: i % 3 === 0 ? `special-${i}` : `plain-${i}`, artifactArchitecture: 'x86_64',
        componentName: `c-${i}`, componentType: 'go-module', componentLocation: '/x', aliases: [`CVE-2026-${100 + i}`],
        events: [{ author: 'bob', reviewState: 'REVIEW_STATE_APPROVED', fixed: { fixedVersion: '1.2.3' } }],
      }));
    }
    const one = await client().get(`/vulnerabilities/v2beta1/advisories/${made[0]}`);
    expect(one.status).toBe(200);
    expect(one.body.events[0]).toMatchObject({ author: 'bob', reviewState: 'REVIEW_STATE_APPROVED', fixed: { fixedVersion: '1.2.3' } });
    expect(one.body.events[0]).not.toHaveProperty('status');

    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await client().get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, page_size: 5, page_token: token });
      seen.push(...page.body.advisories.map((a: any) => a.uid));
      token = page.body.nextPageToken;
    } while (token);
    expect(seen).toEqual([...made].sort());

    const byName = await client().get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, artifact_names: ['plain-1', 'plain-2'] });
    expect(byName.body.advisories.map((a: any) => a.artifactName).sort()).toEqual(['plain-1', 'plain-2']);
    const query = await client().get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, query: 'SPECIAL', page_size: 200 });
    expect(query.body.advisories.map((a: any) => a.artifactName).sort()).toEqual(['special-0', 'special-3', 'special-6', 'special-9']);
    const desc = await client().get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, order_by: 'uid desc', page_size: 2 });
    expect(desc.body.advisories.map((a: any) => a.uid)).toEqual([...made].sort().reverse().slice(0, 2));
  });

  it('advisories: event_types asks for any event of a type; latest_event_type for the latest approved one', async () => {
    const scope = (await client().post(`/iam/v2beta1/groups/${org}`, { name: 'event-types' })).body.uid;
    const at = (minute: number) => `2026-01-01T00:0${minute}:00.000Z`;
    const base = { author: 'a', artifactType: 'apk', artifactArchitecture: 'x86_64', componentName: 'c', componentType: 't', componentLocation: '/' };
    const fixedThenFp = await stack().fixtures.advisory(scope, { ...base, artifactName: 'fixed-then-fp', events: [
      { author: 'b', reviewState: 'REVIEW_STATE_APPROVED', createTime: at(1), fixed: { fixedVersion: '1' } },
      { author: 'b', reviewState: 'REVIEW_STATE_APPROVED', createTime: at(2), falsePositiveDetermination: { type: 'TYPE_INLINE_MITIGATIONS_EXIST' } },
    ] });
    const fixedLatestApproved = await stack().fixtures.advisory(scope, { ...base, artifactName: 'fixed-latest', events: [
      { author: 'b', reviewState: 'REVIEW_STATE_APPROVED', createTime: at(1), fixed: { fixedVersion: '2' } },
      { author: 'b', reviewState: 'REVIEW_STATE_PENDING', createTime: at(3), analysisNotPlanned: { note: 'not yet approved' } },
    ] });
    const list = async (query: Record<string, unknown>) =>
      ((await client().get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, ...query } as never)).body.advisories as any[])
        .map((a) => a.uid).sort();

    expect(await list({ event_types: 'EVENT_TYPE_FILTER_FIXED' })).toEqual([fixedThenFp, fixedLatestApproved].sort());
    expect(await list({ event_types: ['EVENT_TYPE_FILTER_ANALYSIS_NOT_PLANNED', 'EVENT_TYPE_FILTER_PATCHED'] })).toEqual([fixedLatestApproved]);
    expect(await list({ latest_event_type: 'EVENT_TYPE_FILTER_FIXED' })).toEqual([fixedLatestApproved]);
    expect(await list({ latest_event_type: 'EVENT_TYPE_FILTER_FALSE_POSITIVE_DETERMINATION' })).toEqual([fixedThenFp]);
    expect(await list({ latest_event_type: 'EVENT_TYPE_FILTER_UNSPECIFIED' })).toHaveLength(2);
  });
});
