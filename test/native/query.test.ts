/** List requests in store terms: filters on stored paths, references rewritten, residual predicates, keyset cursors. */
import { describe, expect, it } from 'vitest';
import { parseFilters } from '../../src/port/list-query.ts';
import { checkQueryable, cursorAfter, planFilters, storedPath, valuesAt } from '../../src/native/query.ts';
import { MAPPINGS } from '../../mappings/index.ts';
import roleBindings from '../../mappings/role-bindings.ts';
import tags from '../../mappings/tags.ts';
import advisories from '../../mappings/advisories.ts';
import groups from '../../mappings/groups.ts';

const ORG = 'a'.repeat(40);
const row = (body: Record<string, unknown>, uid = `${ORG}/0123456789abcdef`) =>
  ({ uid, parent: ORG, createTime: '2030-01-01T00:00:00.000Z', updateTime: '2030-01-02T00:00:00.000Z', body });

describe('storedPath', () => {
  it('rewrites a hydrated reference uid to where the reference is kept', () => {
    expect(storedPath(roleBindings, 'identity.uid')).toBe('identityUid');
    expect(storedPath(roleBindings, 'role.uid')).toBe('roleUid');
    expect(storedPath(roleBindings, 'group.uid')).toBe('parent');
    expect(storedPath(roleBindings, 'createTime')).toBe('createTime');
  });
  it('refuses a hydrated field the store cannot see', () => {
    expect(() => storedPath(roleBindings, 'identity.name')).toThrow(/hydrated/);
    expect(() => storedPath(groups, 'kind')).toThrow(/hydrated/);
  });
});

describe('every mapping', () => {
  it('can be queried natively (filters and orders resolve; flags are declared)', () => {
    for (const mapping of MAPPINGS) expect(() => checkQueryable(mapping), mapping.name).not.toThrow();
  });
});

describe('planFilters', () => {
  it('turns parsed filters into store filters on stored paths', () => {
    const identity = `${ORG}/1111111111111111`;
    const { canonical } = parseFilters(roleBindings, { identity, 'uidp.children_of': ORG });
    expect(planFilters(roleBindings, canonical)).toEqual({
      store: [{ field: 'uid', op: 'childOf', value: ORG }, { field: 'identityUid', op: 'eq', value: identity }],
    });
  });

  it('maps since to the store\'s gte', () => {
    const { canonical } = parseFilters(tags, { updated_since: '2030-01-01T00:00:00Z', include_referrers: 'true', include_dates: 'true', include_epochs: 'true' });
    expect(planFilters(tags, canonical)).toEqual({ store: [{ field: 'updateTime', op: 'gte', value: '2030-01-01T00:00:00.000Z' }] });
  });

  it('hides referrer, date and epoch tags unless their switch is on', () => {
    const names = ['latest', 'sha256-abc', '1.2-20240131', '1.2.3-r4', '3.12'];
    const shown = (query: Record<string, string>) => {
      const plan = planFilters(tags, parseFilters(tags, query).canonical);
      return names.filter((name) => plan.residual!(row({ name })));
    };
    expect(shown({})).toEqual(['latest', '3.12']);
    expect(shown({ include_referrers: 'true' })).toEqual(['latest', 'sha256-abc', '3.12']);
    expect(shown({ includeDates: 'true', includeEpochs: 'true' })).toEqual(['latest', '1.2-20240131', '1.2.3-r4', '3.12']);
  });

  it('filters advisories by artifact name in the store, and by origin on what the store said it stands for, in its place', () => {
    expect(planFilters(advisories, parseFilters(advisories, { artifact_names: ['curl', 'zlib'] }).canonical))
      .toEqual({ store: [{ field: 'artifactName', op: 'in', value: ['curl', 'zlib'] }] });
    const byOrigin = parseFilters(advisories, { origin: 'openssl', artifact_names: 'curl' }).canonical;
    expect(planFilters(advisories, byOrigin, { origin: ['openssl', 'libssl3'] }))
      .toEqual({ store: [{ field: 'artifactName', op: 'in', value: ['openssl', 'libssl3'] }] });
    // Planned without the store's answer, origin is a bug in the caller, never a filter quietly dropped.
    expect(() => planFilters(advisories, byOrigin)).toThrow(/origin/);
  });

  it('applies a substring over several fields, and declared v1-only filters, as a residual predicate', () => {
    const plan = planFilters(advisories, parseFilters(advisories, { query: 'OPENssl', event_authors: 'alice' }).canonical);
    expect(plan.store).toEqual([]);
    const advisory = (body: Record<string, unknown>) => plan.residual!(row(body));
    expect(advisory({ artifactName: 'x', componentName: 'libopenssl3', events: [{ author: 'bob' }, { author: 'alice' }] })).toBe(true);
    expect(advisory({ artifactName: 'x', aliases: ['openssl-cve'], events: [{ author: 'alice' }] })).toBe(true);
    expect(advisory({ artifactName: 'openssl', events: [{ author: 'bob' }] })).toBe(false);
    expect(advisory({ artifactName: 'zlib', events: [{ author: 'alice' }] })).toBe(false);
  });

  it('excludes by a declared none-match', () => {
    const plan = planFilters(advisories, parseFilters(advisories, { exclude_event_authors: ['bot', 'ci'] }).canonical);
    expect(plan.residual!(row({ events: [{ author: 'alice' }] }))).toBe(true);
    expect(plan.residual!(row({ events: [{ author: 'alice' }, { author: 'ci' }] }))).toBe(false);
  });

  it('answers UNIMPLEMENTED for a v1-only filter native mode does not know', () => {
    // Advisories as if native mode had no declaration for `origin`.
    const { origin: _origin, ...declared } = advisories.native!.filters!;
    const undeclared = { ...advisories, native: { ...advisories.native, filters: declared } };
    const { canonical } = parseFilters(undeclared, { origin: 'openssl' });
    expect(() => planFilters(undeclared, canonical)).toThrow(expect.objectContaining({ code: 12 }));
  });
});

describe('valuesAt and cursorAfter', () => {
  it('reads through lists', () => {
    expect(valuesAt({ events: [{ a: 1 }, { a: [2, 3] }, {}] }, 'events.a')).toEqual([1, 2, 3]);
  });
  it('takes columns from the row and body paths from the document, absent as null', () => {
    const order = [{ field: 'name', desc: false }, { field: 'createTime', desc: true }, { field: 'missing', desc: false }, { field: 'uid', desc: false }];
    expect(cursorAfter(row({ name: 'n' }), order)).toEqual(['n', '2030-01-01T00:00:00.000Z', null, `${ORG}/0123456789abcdef`]);
  });
});
