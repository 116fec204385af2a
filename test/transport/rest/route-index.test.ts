import { describe, expect, it } from 'vitest';
import { bindContract, unservedMethods } from '../../../src/contract/bindings.ts';
import { apiServices } from '../../../src/contract/registry.ts';
import { routeIndex, routeTable, type Route } from '../../../src/transport/rest/routes.ts';
import { MAPPINGS } from '../../../mappings/index.ts';
import { prng } from '../../support/prng.ts';

const VERSIONS = ['v2beta1', 'v2'];
const services = apiServices();
const bindings = bindContract(services, MAPPINGS);
const table = routeTable(bindings, unservedMethods(services, bindings), VERSIONS);
const candidates = routeIndex(table);

/** What the route table answered before it was indexed: the first template of the method, in rank order, that matches. */
function linear(method: string, path: string): Route | undefined {
  return (table.get(method) ?? []).find((route) => route.template.match(path));
}

function indexed(method: string, path: string): Route | undefined {
  return candidates(method, path).find((route) => route.template.match(path));
}

const FILLERS = ['x', 'a/b', 'a/b/c', '', 'groups', 'x:verb', '%2F', 'a:b/c'];

/** Paths a template matches, and near misses: each variable filled in several ways, in every version. */
function samples(source: string, next: () => number): string[] {
  const out: string[] = [];
  for (const version of VERSIONS) {
    for (let i = 0; i < 4; i++) {
      const path = source
        .replace('v2beta1', version)
        .replace(/\{[^}]*\}/g, () => FILLERS[Math.floor(next() * FILLERS.length)]!)
        .replace(/\/+$/, '');
      out.push(path, `${path}:unknownVerb`, `${path}/extra`, path.split(':')[0]!);
    }
  }
  return out;
}

describe('routeIndex', () => {
  it('picks the same route as trying every template of the method in rank order (seeded)', () => {
    const next = prng(12);
    const paths = new Set<string>(['/iam/v2beta1', '/iam/v2', '/iam/v2beta1:verb', '/registry/v2beta1/', '/nothing/v2/groups', '/iam/v2beta1/nosuch/x']);
    for (const routes of table.values()) for (const route of routes) for (const path of samples(route.template.source, next)) paths.add(path);
    let matched = 0;
    for (const method of [...table.keys(), 'OPTIONS']) {
      for (const path of paths) {
        const expected = linear(method, path);
        expect(indexed(method, path)?.template.source, `${method} ${path}`).toBe(expected?.template.source);
        if (expected) matched++;
      }
    }
    // The samples reach most templates, so the comparison is not one of misses alone.
    expect(matched).toBeGreaterThan(table.size * 20);
  });

  it('offers a collection path only its own templates and those with a variable in its place', () => {
    const offered = candidates('GET', '/iam/v2beta1/groups/abc').map((route) => route.template.source);
    expect(offered).toContain('/iam/v2beta1/groups/{uid=**}');
    expect(offered.every((source) => !source.startsWith('/iam/v2beta1/roles'))).toBe(true);
    expect(offered.length).toBeLessThan((table.get('GET') ?? []).length / 2);
  });
});
