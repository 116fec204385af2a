/**
 * The README's name rules ("Names") held to the gateway: for each row of its table, in every mode over
 * real HTTP, a name at each end of the stated length is accepted, one past either end refused with
 * INVALID_ARGUMENT naming `name`, and the stated characters accepted and others refused. A rule the
 * README states and the gateway does not keep, or a row this test cannot read, fails.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { describeModes, type ModeStack } from '../support/modes.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('<!-- names:begin -->'), readme.indexOf('<!-- names:end -->'));

interface Rule { resource: string; min: number; max: number; characters: string }

const rules: Rule[] = section.split('\n')
  .filter((row) => row.startsWith('| ') && !row.startsWith('| resource') && !row.startsWith('|---'))
  .map((row) => {
    const [resource, length, characters] = row.split('|').slice(1, -1).map((cell) => cell.trim());
    const [, min, max] = /^(\d+)–(\d+)$/.exec(length!) ?? [];
    if (!min || !max) throw new Error(`README names table: cannot read the length "${length}" of ${resource}`);
    return { resource: resource!, min: Number(min), max: Number(max), characters: characters! };
  });

/** Each characters phrase the README uses: names it implies are accepted and names it implies are refused. */
const CHARACTERS: Record<string, { accepted: string[]; refused: string[] }> = {
  'any': { accepted: ['Mixed Case é/%+ name'], refused: [] },
  'lowercase letters, digits, space, `.`, `_`, `-`': { accepted: ['a b.c_d-9'], refused: ['Upper', 'a/b', 'a+b', 'é'] },
  'letters, digits, `_`, `.`, `-`; not first `.` or `-`': { accepted: ['A_b.c-9', '_x'], refused: ['.a', '-a', 'a b', 'a/b'] },
};

const DIGEST = 'sha256:ca6bbeb26f80f89eb41261861161cb03eb0fdbca18fbe56418aeb015db8743a7';

/** Creates the resource named `name` under fresh parents where one per parent is the rule; the HTTP answer. */
async function create(stack: ModeStack, org: string, resource: string, name: string): Promise<{ status: number; body: any }> {
  const post = (path: string, body: object) => stack.client.call('POST', path, { body });
  const made = async (path: string, body: object) => {
    const reply = await post(path, body);
    expect(reply.status, `${path}: ${reply.text}`).toBe(200);
    return (reply.body as { uid: string }).uid;
  };
  switch (resource) {
    case 'groups': return post(`/iam/v2beta1/groups/${org}`, { name });
    case 'identities': return post(`/iam/v2beta1/identities/${org}`, { name, claimMatch: { issuer: 'https://issuer.example', subject: name } });
    case 'roles': return post(`/iam/v2beta1/roles/${org}`, { name, capabilities: ['CAP_IAM_GROUPS_LIST'] });
    case 'identityProviders': {
      const role = await made(`/iam/v2beta1/roles/${org}`, { name: 'idp-default', capabilities: ['CAP_IAM_GROUPS_LIST'] });
      return post(`/iam/v2beta1/identityProviders/${org}`, { name, defaultRole: role, oidc: { issuer: 'https://sso.example.com', clientId: 'c', clientSecret: 's' } });
    }
    case 'accountAssociations': {
      // One per group: each name gets a group of its own.
      const group = await made(`/iam/v2beta1/groups/${org}`, { name: `aa-${Math.random().toString(36).slice(2, 10)}` });
      return post(`/iam/v2beta1/accountAssociations/${group}`, { name, amazon: { account: '123456789012' } });
    }
    case 'repos': return post(`/registry/v2beta1/repos/${org}`, { name });
    case 'tags': {
      const repo = await made(`/registry/v2beta1/repos/${org}`, { name: `tags-${Math.random().toString(36).slice(2, 10)}` });
      return post(`/registry/v2beta1/tags/${repo}`, { name, digest: DIGEST });
    }
    default: throw new Error(`README names table: no way to create "${resource}" here; add one`);
  }
}

/** `length` characters: `seed`'s first, then `seed`'s last repeated (names within one parent stay distinct). */
const sized = (seed: string, length: number): string => (seed + seed.at(-1)!.repeat(Math.max(0, length))).slice(0, length);

it('the README states name rules for the resources this test knows', () => {
  expect(rules.map((rule) => rule.resource)).toEqual(expect.arrayContaining(['groups', 'identities', 'roles', 'repos', 'tags']));
  for (const rule of rules) expect(Object.keys(CHARACTERS), `${rule.resource}: "${rule.characters}"`).toContain(rule.characters);
});

describeModes('the README\'s name rules', (stack) => {
  let org = '';
  const fresh = (() => { let n = 0; return () => `${(n++).toString(36)}`; })();

  const accepted = async (resource: string, name: string) => {
    const reply = await create(stack(), org, resource, name);
    expect(reply.status, `${resource} "${name}" (${name.length} characters) should be accepted: ${JSON.stringify(reply.body)}`).toBe(200);
  };
  const refused = async (resource: string, name: string) => {
    const reply = await create(stack(), org, resource, name);
    expect(reply.status, `${resource} "${name}" (${name.length} characters) should be refused: ${JSON.stringify(reply.body)}`).toBe(400);
    const violations = (reply.body.details as Array<{ '@type': string; fieldViolations?: Array<{ field: string }> }>)
      .flatMap((detail) => detail.fieldViolations ?? []);
    expect(violations.map((v) => v.field)).toContain('name');
  };

  it('creates an organisation to hold the names', async () => {
    const reply = await stack().client.call('POST', '/iam/v2beta1/groups', { body: { name: 'names' } });
    expect(reply.status).toBe(200);
    org = (reply.body as { uid: string }).uid;
  });

  it('any string: at most 64 KiB, no NUL, no lone surrogate, as the README says', async () => {
    expect(readme).toContain('Any string in a request is at most 64 KiB and holds no NUL and no lone UTF-16 surrogate.');
    const role = (description: string) => stack().client.call('POST', `/iam/v2beta1/roles/${org}`, { body: { name: `strings-${fresh()}`, description, capabilities: ['CAP_IAM_GROUPS_LIST'] } });
    expect((await role('x'.repeat(64 * 1024))).status).toBe(200);
    for (const description of ['x'.repeat(64 * 1024 + 1), 'a\u0000b', 'a\ud800b']) {
      const reply = await role(description);
      expect(reply.status, `${description.length} characters`).toBe(400);
      expect(JSON.stringify(reply.body.details)).toContain('description');
    }
  });

  for (const rule of rules) {
    const sample = CHARACTERS[rule.characters]?.accepted[0] ?? 'a';
    const seed = /^[a-z]/.test(sample) ? 'a' : 'A';

    it(`${rule.resource}: ${rule.min} to ${rule.max} characters`, async () => {
      await accepted(rule.resource, sized(`${seed}${fresh()}`, rule.min));
      await accepted(rule.resource, sized(`${seed}${fresh()}`, rule.max));
      await refused(rule.resource, sized(`${seed}${fresh()}`, rule.max + 1));
      await refused(rule.resource, sized(`${seed}${fresh()}`, rule.min - 1));
    });

    it(`${rule.resource}: characters ${rule.characters}`, async () => {
      const { accepted: good = [], refused: bad = [] } = CHARACTERS[rule.characters] ?? {};
      for (const name of good) await accepted(rule.resource, name.padEnd(rule.min, 'x'));
      for (const name of bad) await refused(rule.resource, name.padEnd(rule.min, 'x'));
    });
  }
});
