/**
 * The advisories `origin` filter (chainguard-dev/sdk: proto/platform/advisory/v1/advisory.platform.proto): an origin package
 * selects its own advisories and those of its subpackages (libssl3 and
 * libcrypto3 are openssl's), and, when set, the artifact-name filter is not
 * applied. v1 knows which package is whose subpackage from an index of its
 * own, which no v1 route lists; it shows through the filter itself, though:
 * every advisory v1 answers for `origin=<name>` whose artifact is another
 * package names a subpackage of <name>.
 *
 * Native mode keeps that knowledge as one row per subpackage (its uid the
 * subpackage's name, its origin in the body), which the import copies: for
 * each artifact name among the advisories, v1's advisories for it as origin,
 * handed to originRows. A package no row names is its own origin.
 */
import type { Json } from '../../src/vocabulary/json.ts';
import type { StoredResource } from '../../src/store/types.ts';
import { allRows, type V1Copy } from './store-rows.ts';

/** The store's kind: the advisories mapping's `origin` filter reads through it. */
export const PACKAGE_ORIGINS_KIND = 'packageOrigins';
/** The v1 list the import reads once per artifact name, with the name as `origin`. */
export const ORIGIN_FROM_V1 = { v1Path: '/vulnerabilities/v1/advisories', param: 'origin' } as const;

/** The rows saying which packages are subpackages of `origin`, from v1's advisories for it as origin. */
export function originRows(origin: string, v1Advisories: readonly Json[], now: string): StoredResource[] {
  const subpackages = new Set(v1Advisories.map((advisory) => advisory.artifactName).filter((name): name is string => typeof name === 'string' && name !== '' && name !== origin));
  return [...subpackages].sort().map((name) => ({ kind: PACKAGE_ORIGINS_KIND, uid: name, parent: '', body: { origin }, createTime: now, updateTime: now }));
}

/** Subpackages: for each artifact name among the stored advisories, v1's advisories for it as origin (v1 pages them). */
export function originCopy(paging: { readonly pageSize: string; readonly pageToken: string; readonly size: number }): V1Copy {
  return {
    kind: PACKAGE_ORIGINS_KIND,
    async *rows(v1, store, now) {
      const names = new Set<string>();
      for (const advisory of await allRows(store, 'advisories')) {
        if (typeof advisory.body.artifactName === 'string' && advisory.body.artifactName !== '') names.add(advisory.body.artifactName);
      }
      for (const name of [...names].sort()) {
        const answered: Json[] = [];
        for await (const batch of v1.list(ORIGIN_FROM_V1.v1Path, { [ORIGIN_FROM_V1.param]: name }, paging)) answered.push(...batch);
        const rows = originRows(name, answered, now);
        if (rows.length > 0) yield rows;
      }
    },
  };
}
