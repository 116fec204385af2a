/**
 * The build gives the gateway scripts/undici-slim.cjs for `undici` (scripts/build.ts). Every value the
 * sources import from undici, and every error they take from it, must be there and be
 * undici's own object: the tests run the sources with all of undici, so a name the slim entry lacks
 * would be missing only in the build that `npm start` and the image run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const require = createRequire(import.meta.url);
const undici = require('undici') as Record<string, unknown>;
const slim = require(`${ROOT}scripts/undici-slim.cjs`) as Record<string, unknown>;

/** The sources the build bundles: src/, mappings/, and the benchmark's processes (bench/*-process.ts). */
function bundledSources(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(ROOT, dir, entry.name)] : [],
    );
  const bench = readdirSync(join(ROOT, 'bench')).filter((name) => name.endsWith('-process.ts')).map((name) => join(ROOT, 'bench', name));
  return [...walk('src'), ...walk('mappings'), ...bench];
}

/** Value names of `import { … } from 'undici'` (not `import type`, not `type X`), and `X.member` uses of them. */
function undiciUses(source: string): { names: string[]; members: Array<[string, string]> } {
  const names: string[] = [];
  for (const match of source.matchAll(/import\s+\{([^}]*)\}\s+from\s+'undici'/g)) {
    for (const part of match[1]!.split(',')) {
      const spec = part.trim();
      if (!spec || spec.startsWith('type ')) continue;
      const [imported, local] = spec.split(/\s+as\s+/).map((s) => s.trim());
      names.push(`${imported}${local ? ` as ${local}` : ''}`);
    }
  }
  const members: Array<[string, string]> = [];
  for (const name of names) {
    const [imported, local = imported] = name.split(' as ') as [string, string?];
    for (const use of source.matchAll(new RegExp(`\\b${local}\\.(\\w+)`, 'g'))) members.push([imported, use[1]!]);
  }
  return { names: names.map((n) => n.split(' as ')[0]!), members };
}

describe('undici in the build (scripts/undici-slim.cjs)', () => {
  const uses = bundledSources().map((file) => undiciUses(readFileSync(file, 'utf8')));
  const names = [...new Set(uses.flatMap((u) => u.names))].sort();
  const members = [...new Set(uses.flatMap((u) => u.members.map(([n, m]) => `${n}.${m}`)))].sort();

  it('the sources import undici at all (the scan finds them)', () => {
    expect(names).toContain('Pool');
    expect(members).toContain('errors.SocketError');
  });

  it("has every value the sources import, as undici's own object", () => {
    for (const name of names) {
      // A class or function is undici's own; a namespace (errors) may hold fewer members, checked below.
      if (typeof undici[name] === 'function') expect(slim[name], name).toBe(undici[name]);
      else expect(typeof slim[name], name).toBe('object');
    }
  });

  it("has every member the sources take from those values (errors.SocketError, …), as undici's own", () => {
    for (const member of members) {
      const [name, key] = member.split('.') as [string, string];
      const full = undici[name] as Record<string, unknown>;
      const ours = slim[name] as Record<string, unknown>;
      // Methods of a class (Pool.prototype's) are the class's own; only plain objects are checked member by member.
      if (typeof full !== 'object') continue;
      expect(ours[key], member).toBeDefined();
      expect(ours[key], member).toBe(full[key]);
    }
  });

  it('gives every dispatcher undici\'s request API, as undici\'s index does', () => {
    const Pool = slim.Pool as { prototype: Record<string, unknown> };
    for (const method of ['request', 'stream', 'pipeline', 'connect', 'upgrade']) expect(typeof Pool.prototype[method], method).toBe('function');
  });
});
