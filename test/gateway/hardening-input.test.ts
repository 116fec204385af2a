/**
 * Bad input is INVALID_ARGUMENT naming the field, never INTERNAL, and changes
 * nothing — identically in translate mode and on both store engines (issue 10):
 * Object.prototype names as mask paths and body keys, JSON nested past the
 * limit inside free-form fields, NUL and lone surrogates in any string, and
 * over-long names and strings.
 */
import { expect, it } from 'vitest';
import { MAX_JSON_DEPTH, MAX_STRING_BYTES } from '../../src/aip/input-limits.ts';
import { ALL_MODES, describeModes } from '../support/modes.ts';
import { aip, type Reply } from '../support/stack.ts';

const INHERITED = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

/** The reply is 400 INVALID_ARGUMENT with one BadRequest violation on `field` (or a field `field` matches). */
function refused(reply: Reply, field: string | RegExp): string {
  expect(reply.status, reply.text.slice(0, 300)).toBe(400);
  const error = aip(reply);
  expect(error.code).toBe(3);
  expect(error.byType.ErrorInfo.reason).toBe('INVALID_ARGUMENT');
  const violations = error.byType.BadRequest.fieldViolations as { field: string; description: string }[];
  expect(violations).toHaveLength(1);
  if (typeof field === 'string') expect(violations[0]!.field).toBe(field);
  else expect(violations[0]!.field).toMatch(field);
  return violations[0]!.description;
}

/** `levels` nested objects as JSON text, `{"a":{"a":…1…}}`. */
const deepJson = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describeModes('input hardening', (stack) => {
  let org: string;
  let identity: string;
  let role: string;
  const client = () => stack().client;
  const group = async (name: string) => {
    const reply = await client().post(`/iam/v2beta1/groups/${org}`, { name });
    if (reply.status !== 200) throw new Error(reply.text);
    return reply.body.uid as string;
  };
  const count = async (path: string, key: string, query: Record<string, string> = {}) =>
    (await client().get(path, { 'uidp.descendants_of': org, ...query })).body[key].length as number;
  /** Runs `attempt` and checks that the resource at `path` reads the same afterwards. */
  const unchanged = async (path: string, attempt: () => Promise<void>) => {
    const before = await client().get(path);
    expect(before.status).toBe(200);
    await attempt();
    expect((await client().get(path)).body).toEqual(before.body);
  };

  it('set-up', async () => {
    org = (await client().post('/iam/v2beta1/groups', { name: 'hardening-org' })).body.uid;
    identity = (await client().post(`/iam/v2beta1/identities/${org}`, {
      name: 'bot', description: 'kept', claimMatch: { issuer: 'https://issuer.example', subject: 'bot', claims: { aud: 'x' } },
    })).body.uid;
    role = (await client().post(`/iam/v2beta1/roles/${org}`, { name: 'reader', capabilities: ['CAP_IAM_GROUPS_LIST'] })).body.uid;
    expect(identity).toBeTruthy();
    expect(role).toBeTruthy();
  });

  // ---- 1. Object.prototype names -----------------------------------------------

  it('an Object.prototype name as an updateMask path, top-level or nested, is INVALID_ARGUMENT on update_mask and writes nothing', async () => {
    for (const name of INHERITED) {
      for (const mask of [name, `claimMatch.${name}`, `claim_match.${name}`, `description,${name}`]) {
        await unchanged(`/iam/v2beta1/identities/${identity}`, async () => {
          const reply = await client().patch(`/iam/v2beta1/identities/${identity}`, { description: 'changed' }, { updateMask: mask });
          expect(refused(reply, 'update_mask')).toContain('unknown field path');
        });
      }
      await unchanged(`/iam/v2beta1/roles/${role}`, async () => {
        refused(await client().patch(`/iam/v2beta1/roles/${role}`, { name: 'changed' }, { update_mask: name }), 'update_mask');
      });
    }
  });

  it('an Object.prototype name as a PATCH body key (an own key once parsed) is INVALID_ARGUMENT naming it, top-level or nested', async () => {
    for (const name of INHERITED) {
      await unchanged(`/iam/v2beta1/identities/${identity}`, async () => {
        refused(await client().call('PATCH', `/iam/v2beta1/identities/${identity}`, { raw: `{"${name}": {"description": "polluted"}}` }), name);
        refused(await client().call('PATCH', `/iam/v2beta1/identities/${identity}`, { raw: `{"claimMatch": {"${name}": {"issuer": "polluted"}}}` }), `claimMatch.${name}`);
      });
    }
    expect(({} as { description?: unknown }).description).toBeUndefined();
  });

  it('an Object.prototype name as a create body key is ignored like any unknown key, and lends the resource nothing', async () => {
    for (const name of INHERITED) {
      const reply = await client().call('POST', `/iam/v2beta1/roles/${org}`, {
        raw: `{"name": "proto-${name}", "capabilities": ["CAP_IAM_GROUPS_LIST"], "${name}": {"description": "polluted", "uid": "x"}}`,
      });
      expect(reply.status, reply.text.slice(0, 300)).toBe(200);
      expect(reply.body.description).toBe('');
      expect((await client().get(`/iam/v2beta1/roles/${reply.body.uid}`)).body).toEqual(reply.body);
      expect(Object.keys(reply.body)).not.toContain(name);
    }
    expect(({} as { description?: unknown }).description).toBeUndefined();
  });

  it('Object.prototype names as order_by fields and filter values are refused or match nothing', async () => {
    for (const name of INHERITED) {
      refused(await client().get('/iam/v2beta1/roles', { order_by: name }), 'order_by');
      const listed = await client().get('/iam/v2beta1/roles', { 'uidp.children_of': org, name });
      expect(listed.status).toBe(200);
      expect(listed.body.roles).toEqual([]);
    }
  });

  // ---- 2. nesting ----------------------------------------------------------------

  it(`JSON nested past ${MAX_JSON_DEPTH} levels in a free-form field is INVALID_ARGUMENT naming its path, at any depth, and creates nothing`, async () => {
    const uid = await group('deep');
    for (const levels of [MAX_JSON_DEPTH, 1_000, 5_000]) {
      const raw = `{"name": "deep", "github": {"appInstallations": {"123": ${deepJson(levels)}}}}`;
      const description = refused(await client().call('POST', `/iam/v2beta1/accountAssociations/${uid}`, { raw }), /^github\.appInstallations\.123\.a(\.a)*$/);
      expect(description).toContain(`${MAX_JSON_DEPTH} levels`);
    }
    expect((await client().get(`/iam/v2beta1/accountAssociations/${uid}`)).status).toBe(404);
  });

  it('JSON nested past the limit in a PATCH body or a map field is INVALID_ARGUMENT too, and changes nothing', async () => {
    await unchanged(`/iam/v2beta1/identities/${identity}`, async () => {
      refused(await client().call('PATCH', `/iam/v2beta1/identities/${identity}`, { raw: `{"claimMatch": {"claims": ${deepJson(2_000)}}}` }), /^claimMatch\.claims\.a(\.a)*$/);
      refused(await client().call('PATCH', `/iam/v2beta1/identities/${identity}`, { raw: `{"description": ${deepJson(10_000)}}` }, ), /^description\.a(\.a)*$/);
    });
  });

  it('a body within the limit is taken', async () => {
    const uid = await group('shallow');
    const installations = { installations: [{ installationId: '42', name: 'app' }] };
    const reply = await client().post(`/iam/v2beta1/accountAssociations/${uid}`, { name: 'shallow', github: { appInstallations: { 123: installations } } });
    expect(reply.status, reply.text.slice(0, 300)).toBe(200);
  });

  // ---- 3. NUL and lone surrogates --------------------------------------------------

  it('NUL or a lone surrogate in a body value is INVALID_ARGUMENT naming the field, on create and update, and writes nothing', async () => {
    const before = await count('/iam/v2beta1/groups', 'groups');
    refused(await client().post(`/iam/v2beta1/groups/${org}`, { name: 'nul\u0000name' }), 'name');
    refused(await client().post(`/iam/v2beta1/groups/${org}`, { name: 'fine', description: 'half \uD800 a pair' }), 'description');
    refused(await client().post(`/iam/v2beta1/groups/${org}`, { name: 'fine', description: '\uDC00' }), 'description');
    expect(await count('/iam/v2beta1/groups', 'groups')).toBe(before);
    await unchanged(`/iam/v2beta1/identities/${identity}`, async () => {
      refused(await client().patch(`/iam/v2beta1/identities/${identity}`, { description: 'a\u0000b' }), 'description');
      refused(await client().patch(`/iam/v2beta1/identities/${identity}`, { claimMatch: { issuer: 'https://issuer.example', subject: '\uD83D' } }), 'claimMatch.subject');
      refused(await client().patch(`/iam/v2beta1/identities/${identity}`, { claimMatch: { issuer: 'https://issuer.example', subject: 'bot', claims: { 'k\u0000': 'v' } } }), 'claimMatch.claims.k\\u0000');
      refused(await client().patch(`/iam/v2beta1/roles/${role}`, { capabilities: ['CAP_IAM_GROUPS_LIST', '\u0000'] }), 'capabilities[1]');
    });
  });

  it('a surrogate pair is ordinary text', async () => {
    const reply = await client().post(`/iam/v2beta1/groups/${org}`, { name: 'pair', description: 'smile \u{1F600}' });
    expect(reply.status, reply.text.slice(0, 300)).toBe(200);
    expect(reply.body.description).toBe('smile \u{1F600}');
  });

  it('NUL in a name filter, a lookupIdentity parameter or a path uid is INVALID_ARGUMENT naming it', async () => {
    refused(await client().get('/iam/v2beta1/groups', { name: 'a\u0000' }), 'name');
    refused(await client().get('/iam/v2beta1/roles', { 'uidp.children_of': org, name: '\u0000' }), 'name');
    refused(await client().get('/iam/v2beta1/identities:lookupIdentity', { issuer: 'https://issuer.example\u0000', subject: 'bot' }), 'issuer');
    refused(await client().get('/iam/v2beta1/identities:lookupIdentity', { issuer: 'https://issuer.example', subject: 'b\u0000ot' }), 'subject');
    refused(await client().get(`/iam/v2beta1/groups/${org}%00`), 'uid');
    await unchanged(`/iam/v2beta1/roles/${role}`, async () => {
      refused(await client().patch(`/iam/v2beta1/roles/${role}%00`, { name: 'x' }), 'uid');
    });
  });

  // ---- 4. lengths ---------------------------------------------------------------------

  it('a role or account-association name over 256 characters is INVALID_ARGUMENT on name, on create and update', async () => {
    const long = 'r'.repeat(2_700);
    refused(await client().post(`/iam/v2beta1/roles/${org}`, { name: long, capabilities: ['CAP_IAM_GROUPS_LIST'] }), 'name');
    refused(await client().post(`/iam/v2beta1/roles/${org}`, { name: '\uE000'.repeat(257), capabilities: ['CAP_IAM_GROUPS_LIST'] }), 'name');
    await unchanged(`/iam/v2beta1/roles/${role}`, async () => {
      refused(await client().patch(`/iam/v2beta1/roles/${role}`, { name: long }), 'name');
    });
    const uid = await group('long-aa');
    refused(await client().post(`/iam/v2beta1/accountAssociations/${uid}`, { name: long, amazon: { account: '1' } }), 'name');
    expect((await client().get(`/iam/v2beta1/accountAssociations/${uid}`)).status).toBe(404);
    // The longest name allowed, of the characters that take most room in the store's name index, is stored.
    const longest = await client().post(`/iam/v2beta1/roles/${org}`, { name: '\uE000'.repeat(256), capabilities: ['CAP_IAM_GROUPS_LIST'] });
    expect(longest.status, longest.text.slice(0, 300)).toBe(200);
    expect((await client().post(`/iam/v2beta1/accountAssociations/${uid}`, { name: '\uFFFF'.repeat(256), amazon: { account: '1' } })).status).toBe(200);
    expect((await client().get('/iam/v2beta1/roles', { 'uidp.children_of': org, order_by: 'name desc' })).body.roles[0].uid).toBe(longest.body.uid);
  });

  it(`a string over ${MAX_STRING_BYTES} bytes is INVALID_ARGUMENT naming the field`, async () => {
    const before = await count('/iam/v2beta1/groups', 'groups');
    refused(await client().post(`/iam/v2beta1/groups/${org}`, { name: 'big', description: 'd'.repeat(MAX_STRING_BYTES + 1) }), 'description');
    await unchanged(`/iam/v2beta1/identities/${identity}`, async () => {
      refused(await client().patch(`/iam/v2beta1/identities/${identity}`, { description: '€'.repeat(MAX_STRING_BYTES / 3 + 1) }), 'description');
    });
    expect(await count('/iam/v2beta1/groups', 'groups')).toBe(before);
  });
}, { modes: ALL_MODES });
