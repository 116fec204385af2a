import { describe, it, expect } from 'vitest';
import { parseFilters, readListQuery } from '../../src/port/list-query.ts';
import { PageTokenCodec } from '../../src/aip/page-token.ts';
import groups from '../../mappings/groups.ts';
import identities from '../../mappings/identities.ts';
import repos from '../../mappings/repos.ts';
import roleBindings from '../../mappings/role-bindings.ts';
import roles from '../../mappings/roles.ts';
import { invalidOn } from '../support/invalid-argument.ts';

const ROOT = 'a'.repeat(40);
const OTHER_ROOT = 'b'.repeat(40);
const CHILD = `${ROOT}/${'1'.repeat(16)}`;
const GRANDCHILD = `${CHILD}/${'2'.repeat(16)}`;
const SIBLING = `${ROOT}/${'3'.repeat(16)}`;
const ALL = [ROOT, OTHER_ROOT, CHILD, GRANDCHILD, SIBLING];

const matching = (filters: ReturnType<typeof parseFilters>, uids = ALL) => uids.filter((uid) => filters.matches({ uid }));

describe('parseFilters: no filters', () => {
  it('matches everything and sends nothing to v1', () => {
    const f = parseFilters(groups, {});
    expect(f.canonical).toEqual({});
    expect(f.v1Query).toEqual({});
    expect(matching(f)).toEqual(ALL);
  });

  it('ignores paging and unknown query keys', () => {
    const f = parseFilters(groups, { page_size: '10', order_by: 'name', colour: 'red', 'uidp.colour': 'x' });
    expect(f.canonical).toEqual({});
    expect(f.v1Query).toEqual({});
  });
});

describe('parseFilters: uidp.descendants_of', () => {
  it('accepts the proto spelling and sends the JSON spelling to v1', () => {
    const f = parseFilters(groups, { 'uidp.descendants_of': ROOT });
    expect(f.canonical).toEqual({ 'uidp.descendants_of': ROOT });
    expect(f.v1Query).toEqual({ 'uidp.descendantsOf': ROOT });
  });

  it('accepts the JSON spelling with the same canonical form', () => {
    const snake = parseFilters(groups, { 'uidp.descendants_of': ROOT });
    const camel = parseFilters(groups, { 'uidp.descendantsOf': ROOT });
    expect(camel.canonical).toEqual(snake.canonical);
    expect(camel.v1Query).toEqual(snake.v1Query);
  });

  it('refuses both spellings at once', () => {
    invalidOn('uidp.descendants_of', () => parseFilters(groups, { 'uidp.descendants_of': ROOT, 'uidp.descendantsOf': ROOT }));
  });

  it('keeps strict descendants only (not the group itself, not other organisations)', () => {
    expect(matching(parseFilters(groups, { 'uidp.descendants_of': ROOT }))).toEqual([CHILD, GRANDCHILD, SIBLING]);
    expect(matching(parseFilters(groups, { 'uidp.descendants_of': CHILD }))).toEqual([GRANDCHILD]);
  });

  it.each([
    ['not hex', 'z'.repeat(40)],
    ['too short', 'a'.repeat(39)],
    ['uppercase hex', 'A'.repeat(40)],
    ['bad child segment', `${ROOT}/123`],
    ['trailing slash', `${ROOT}/`],
    ['leading slash', `/${ROOT}`],
    ['a name', 'engineering'],
  ])('refuses an invalid UIDP: %s', (_label, value) => {
    const e = invalidOn('uidp.descendants_of', () => parseFilters(groups, { 'uidp.descendants_of': value }));
    expect(e.message).toContain(value);
  });

  it('reports the invalid UIDP under the canonical name whichever spelling was used', () => {
    invalidOn('uidp.descendants_of', () => parseFilters(groups, { 'uidp.descendantsOf': 'nope' }));
  });

  it('refuses the filter given twice', () => {
    invalidOn('uidp.descendants_of', () => parseFilters(groups, { 'uidp.descendants_of': [ROOT, CHILD] }));
  });

  it('treats an empty value as no filter', () => {
    const f = parseFilters(groups, { 'uidp.descendants_of': '' });
    expect(f.canonical).toEqual({});
    expect(f.v1Query).toEqual({});
  });
});

describe('parseFilters: other UIDP filters', () => {
  it('uidp.children_of / childrenOf keeps direct children only', () => {
    const f = parseFilters(roles, { 'uidp.childrenOf': ROOT });
    expect(f.v1Query).toEqual({ 'uidp.childrenOf': ROOT });
    expect(matching(f)).toEqual([CHILD, SIBLING]);
  });

  it('uidp.ancestors_of keeps strict ancestors', () => {
    const f = parseFilters(groups, { 'uidp.ancestors_of': GRANDCHILD });
    expect(f.v1Query).toEqual({ 'uidp.ancestorsOf': GRANDCHILD });
    expect(matching(f)).toEqual([ROOT, CHILD]);
  });

  it('uidp.ids accepts one value, as a list', () => {
    const f = parseFilters(groups, { 'uidp.ids': CHILD });
    expect(f.canonical).toEqual({ 'uidp.ids': [CHILD] });
    expect(f.v1Query).toEqual({ 'uidp.ids': [CHILD] });
    expect(matching(f)).toEqual([CHILD]);
  });

  it('uidp.ids accepts repeated values and matches exactly those', () => {
    const f = parseFilters(groups, { 'uidp.ids': [GRANDCHILD, OTHER_ROOT] });
    expect(f.v1Query).toEqual({ 'uidp.ids': [GRANDCHILD, OTHER_ROOT] });
    expect(matching(f)).toEqual([OTHER_ROOT, GRANDCHILD]);
  });

  it('uidp.ids refuses any invalid member', () => {
    invalidOn('uidp.ids', () => parseFilters(groups, { 'uidp.ids': [ROOT, 'nope'] }));
    invalidOn('uidp.ids', () => parseFilters(groups, { 'uidp.ids': '' }));
  });

  it.each([
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ])('uidp.in_root=%s parses as %s', (raw, value) => {
    const f = parseFilters(groups, { 'uidp.in_root': raw });
    expect(f.canonical).toEqual({ 'uidp.in_root': value });
    expect(f.v1Query).toEqual({ 'uidp.inRoot': value });
  });

  it('uidp.in_root accepts every spelling grpc-gateway accepts (Go strconv.ParseBool)', () => {
    // grpc-gateway's runtime: query parameters follow the grpc-gateway runtime, which parses bools with
    // strconv.ParseBool: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False.
    const spellings: [string, boolean][] = [
      ['t', true], ['T', true], ['TRUE', true], ['True', true],
      ['f', false], ['F', false], ['FALSE', false], ['False', false],
    ];
    const parsed = spellings.map(([raw]) => {
      try {
        return parseFilters(groups, { 'uidp.in_root': raw }).canonical['uidp.in_root'];
      } catch {
        return 'refused';
      }
    });
    expect(parsed).toEqual(spellings.map(([, value]) => value));
  });

  it('uidp.inRoot (JSON spelling) filters to root-level or non-root rows', () => {
    expect(matching(parseFilters(groups, { 'uidp.inRoot': 'true' }))).toEqual([ROOT, OTHER_ROOT]);
    expect(matching(parseFilters(groups, { 'uidp.inRoot': 'false' }))).toEqual([CHILD, GRANDCHILD, SIBLING]);
  });

  it.each(['yes', 'no', 'on', 'tRuE', '2', '-1', ' true'])('uidp.in_root refuses %j', (raw) => {
    invalidOn('uidp.in_root', () => parseFilters(groups, { 'uidp.in_root': raw }));
  });

  it('uidp.in_root does not require a UIDP value', () => {
    expect(() => parseFilters(groups, { 'uidp.in_root': 'true' })).not.toThrow();
  });
});

describe('parseFilters: gateway-only and v1 filters', () => {
  it('groups `name` reaches v1 and is also applied by the gateway', () => {
    const f = parseFilters(groups, { name: 'eng' });
    expect(f.v1Query).toEqual({ name: 'eng' });
    expect(f.canonical).toEqual({ name: 'eng' });
    expect(f.matches({ uid: CHILD, name: 'eng' })).toBe(true);
    expect(f.matches({ uid: CHILD, name: 'engineering' })).toBe(false);
    expect(f.matches({ uid: CHILD, name: 'ENG' })).toBe(false);
  });

  it('identities `name` is gateway-only: not sent to v1 (which has no such filter), but applied', () => {
    const f = parseFilters(identities, { name: 'ci-bot', 'uidp.descendants_of': ROOT });
    expect(f.v1Query).toEqual({ 'uidp.descendantsOf': ROOT });
    expect(f.canonical).toEqual({ name: 'ci-bot', 'uidp.descendants_of': ROOT });
    expect(f.matches({ uid: CHILD, name: 'ci-bot' })).toBe(true);
    expect(f.matches({ uid: CHILD, name: 'other' })).toBe(false);
    expect(f.matches({ uid: OTHER_ROOT, name: 'ci-bot' })).toBe(false);
  });

  it('repos `name` reaches v1', () => {
    expect(parseFilters(repos, { name: 'nginx' }).v1Query).toEqual({ name: 'nginx' });
  });

  it('role bindings: `group` maps to v1 uidp.childrenOf, `identity` and `role` are gateway-only on hydrated fields', () => {
    const f = parseFilters(roleBindings, { group: CHILD, identity: GRANDCHILD, role: SIBLING });
    expect(f.v1Query).toEqual({ 'uidp.childrenOf': CHILD });
    const binding = { uid: `${CHILD}/${'9'.repeat(16)}`, identity: { uid: GRANDCHILD }, role: { uid: SIBLING } };
    expect(f.matches(binding)).toBe(true);
    expect(f.matches({ ...binding, role: { uid: ROOT } })).toBe(false);
    expect(f.matches({ ...binding, identity: { uid: CHILD } })).toBe(false);
    expect(f.matches({ ...binding, uid: `${SIBLING}/${'9'.repeat(16)}` })).toBe(false);
  });

  it('role bindings `identity` must be a UIDP', () => {
    invalidOn('identity', () => parseFilters(roleBindings, { identity: 'someone@example.com' }));
  });

  it('every filter must hold (AND)', () => {
    const f = parseFilters(groups, { 'uidp.descendants_of': ROOT, 'uidp.in_root': 'false', name: 'x' });
    expect(f.matches({ uid: CHILD, name: 'x' })).toBe(true);
    expect(f.matches({ uid: CHILD, name: 'y' })).toBe(false);
    expect(f.matches({ uid: ROOT, name: 'x' })).toBe(false);
  });

  it('canonical form is the same whatever spelling the request used (for the token fingerprint)', () => {
    const a = parseFilters(groups, { 'uidp.descendants_of': ROOT, 'uidp.in_root': '1' });
    const b = parseFilters(groups, { 'uidp.descendantsOf': ROOT, 'uidp.inRoot': 'true' });
    expect(a.canonical).toEqual(b.canonical);
  });

  it('a single-valued filter given twice is refused', () => {
    invalidOn('name', () => parseFilters(groups, { name: ['a', 'b'] }));
  });
});

describe('parseFilters: Object.prototype names', () => {
  it('are not enum values of a filter', async () => {
    const advisories = (await import('../../mappings/advisories.ts')).default;
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      invalidOn('latest_event_type', () => parseFilters(advisories, { latest_event_type: name }));
      invalidOn('event_types', () => parseFilters(advisories, { event_types: [name] }));
    }
  });

  it('are not filters, even as own keys of the query', () => {
    const query = JSON.parse('{"__proto__": "x", "constructor": "y", "toString": "z"}') as Record<string, string>;
    const f = parseFilters(groups, query);
    expect(f.canonical).toEqual({});
    expect(f.v1Query).toEqual({});
  });
});

describe('readListQuery: a query read once per mapping, whatever its page token', () => {
  const tokens = new PageTokenCodec(Buffer.alloc(32, 7));
  const org = 'a'.repeat(40);

  it('gives the same filters, order and fingerprint to the same query on every page, and reads each page\'s token', () => {
    const first = readListQuery(groups, { 'uidp.children_of': org, order_by: 'name' }, tokens);
    const token = tokens.seal(first.fingerprint, { after: ['x', 'y'], skipped: 0 });
    const second = readListQuery(groups, { 'uidp.children_of': org, order_by: 'name', page_token: token }, tokens);
    expect(second.filters).toBe(first.filters);
    expect(second.order).toBe(first.order);
    expect(second.fingerprint).toBe(first.fingerprint);
    expect(first.cursor).toBeUndefined();
    expect(second.cursor).toEqual({ after: ['x', 'y'], skipped: 0 });
  });

  it('reads a query that differs in any parameter, or for another mapping of the same name, on its own', () => {
    const base = readListQuery(groups, { 'uidp.children_of': org }, tokens);
    const other = readListQuery(groups, { 'uidp.children_of': 'b'.repeat(40) }, tokens);
    expect(other.filters).not.toBe(base.filters);
    expect(other.fingerprint).not.toBe(base.fingerprint);
    expect(other.filters.v1Query).not.toEqual(base.filters.v1Query);
    const twin = { ...groups, filters: {} };
    const unfiltered = readListQuery(twin, { 'uidp.children_of': org }, tokens);
    expect(unfiltered.filters.v1Query).toEqual({});
    // A parameter that is not a filter still tells the queries apart (held apart, read alike).
    expect(readListQuery(groups, { 'uidp.children_of': org, page_size: '5' }, tokens).filters).not.toBe(base.filters);
  });

  it('refuses a bad query every time (a refusal is not held), and reads a very long one every time', () => {
    for (let i = 0; i < 2; i++) expect(() => readListQuery(groups, { 'uidp.children_of': 'not a uidp' }, tokens)).toThrow();
    const ids = Array.from({ length: 200 }, (_, i) => `${org}/${String(i).padStart(16, '0')}`);
    const long = readListQuery(groups, { 'uidp.ids': ids }, tokens);
    expect(readListQuery(groups, { 'uidp.ids': ids }, tokens).filters).not.toBe(long.filters);
    expect(readListQuery(groups, { 'uidp.ids': ids }, tokens).fingerprint).toBe(long.fingerprint);
  });
});
