/**
 * The mistakes a developer makes in the first ten minutes, on both protocols:
 * a misspelled filter or query parameter is refused rather than answered as if
 * absent, and a parent put anywhere but the path never creates a root
 * organisation — for every resource that can be created.
 */
import { expect, it } from 'vitest';
import { describeModes } from '../support/modes.ts';
import { TOKEN, aip } from '../support/stack.ts';

/** Each creatable resource: REST collection, gRPC service and message, the request's body field in JSON. */
const CREATES = [
  ['iam/v2beta1/groups', 'iam.v2beta1.GroupsService', 'Group', 'group'],
  ['iam/v2beta1/identities', 'iam.v2beta1.IdentitiesService', 'Identity', 'identity'],
  ['iam/v2beta1/roles', 'iam.v2beta1.RolesService', 'Role', 'role'],
  ['iam/v2beta1/roleBindings', 'iam.v2beta1.RoleBindingsService', 'RoleBinding', 'roleBinding'],
  ['iam/v2beta1/identityProviders', 'iam.v2beta1.IdentityProvidersService', 'IdentityProvider', 'identityProvider'],
  ['iam/v2beta1/accountAssociations', 'iam.v2beta1.AccountAssociationsService', 'AccountAssociation', 'accountAssociation'],
  ['iam/v2beta1/groupInvites', 'iam.v2beta1.GroupInvitesService', 'GroupInvite', 'groupInvite'],
  ['registry/v2beta1/repos', 'registry.v2beta1.ReposService', 'Repo', 'repo'],
  ['registry/v2beta1/tags', 'registry.v2beta1.TagsService', 'Tag', 'tag'],
] as const;

describeModes('first minutes', (stack) => {
  let org: string;
  const client = () => stack().client;
  const roots = async () => {
    const { body } = await client().get('/iam/v2beta1/groups', { page_size: 200 });
    return (body.groups as { uid: string }[]).filter((g) => !g.uid.includes('/')).length;
  };

  it('set-up', async () => {
    org = (await client().post('/iam/v2beta1/groups', { name: 'first-minutes' })).body.uid;
    await client().post(`/iam/v2beta1/groups/${org}`, { name: 'child' });
  });

  it('a misspelled filter is INVALID_ARGUMENT naming it and the filters there are, not a list of everything', async () => {
    const reply = await client().get('/iam/v2beta1/groups', { 'uidp.children': org });
    expect(reply.status).toBe(400);
    const violation = aip(reply).byType.BadRequest.fieldViolations[0];
    expect(violation.field).toBe('uidp.children');
    expect(violation.description).toContain('uidp.children_of');
    // Both spellings of the real filter still work, and filter.
    for (const key of ['uidp.children_of', 'uidp.childrenOf']) {
      const { status, body } = await client().get('/iam/v2beta1/groups', { [key]: org });
      expect(status).toBe(200);
      expect(body.groups.map((g: { name: string }) => g.name)).toEqual(['child']);
    }
  });

  it.each([['colour', 'red'], ['pagesize', '1'], ['filter', 'name=x'], ['uidp', 'x'], ['uidp.descendants_of.x', 'y'], ['__proto__', 'x']])(
    'an unknown query parameter %j is INVALID_ARGUMENT naming it',
    async (key, value) => {
      const reply = await client().get('/iam/v2beta1/roles', { [key]: value });
      expect(reply.status).toBe(400);
      expect(aip(reply).byType.BadRequest.fieldViolations[0].field).toBe(key);
    },
  );

  it('every parameter a method reads is still accepted: paging, order, filters, the mask, lookup parameters', async () => {
    expect((await client().get('/iam/v2beta1/groups', { page_size: 1, pageToken: '', order_by: 'name', skip: 0, 'uidp.ids': [org], name: 'first-minutes' })).status).toBe(200);
    expect((await client().get('/registry/v2beta1/repos', { 'uidp.descendants_of': org, name: 'x' })).status).toBe(200);
    expect((await client().get('/iam/v2beta1/identities:lookupIdentity', { issuer: 'https://issuer.example', subject: 'someone' })).status).toBe(200);
    expect((await client().call('PATCH', `/iam/v2beta1/groups/${org}`, { body: { description: 'masked' }, query: { update_mask: 'description' } })).status).toBe(200);
  });

  it('a create body key the resource lacks is discarded, as the real service does, and the answer shows what was made', async () => {
    const { status, body } = await client().post(`/iam/v2beta1/groups/${org}`, { name: 'typo', descripton: 'lost' });
    expect(status).toBe(200);
    expect(body.description).toBe('');
    expect(body).not.toHaveProperty('descripton');
  });

  it.each(CREATES)('REST: a parent in the body or the query of POST /%s is refused, and no root organisation appears', async (collection) => {
    const before = await roots();
    const inBody = await client().post(`/${collection}`, { name: 'misplaced', parent: org });
    expect(inBody.status).toBe(400);
    expect(aip(inBody).byType.BadRequest.fieldViolations[0].field).toBe('parent');
    const inQuery = await client().call('POST', `/${collection}`, { body: { name: 'misplaced' }, query: { parent: org } });
    expect(inQuery.status).toBe(400);
    expect(aip(inQuery).byType.BadRequest.fieldViolations[0].field).toBe('parent');
    expect(await roots()).toBe(before);
  });

  it.each(CREATES)('gRPC (Connect JSON): a parent inside the %s message is refused, and no root organisation appears', async (_collection, service, message, bodyField) => {
    const before = await roots();
    const response = await fetch(`${stack().url}/chainguard.platform.${service}/Create${message}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: TOKEN },
      body: JSON.stringify({ [bodyField]: { parent: org } }),
    });
    const body = await response.json() as { code: string; message: string };
    expect(response.status).toBe(400);
    expect(body.code).toBe('invalid_argument');
    expect(body.message).toContain('"parent" is unknown');
    expect(await roots()).toBe(before);
  });
});
