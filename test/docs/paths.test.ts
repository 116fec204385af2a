/**
 * Every repository path the prose names exists: in README.md, docs/ and the other Markdown files (whole
 * text; the emulator's README is the emulator's own), and in the comments
 * of src/ and mappings/ (paths from the repository's root, `src/store/open.ts`, and under src/ by folder,
 * `render/merge.ts`). A file moved or removed without its mentions fails here, naming each stale mention.
 * Facts are cited by their public source (`chainguard-dev/sdk: proto/…`), which is not this repository's
 * and is not checked; nor is any file outside the repository named (the research notes the team works from
 * are not part of it).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);

/** Top-level folders a path from the root starts with, and the folders of src/ a short path starts with. */
const TOP = ['src', 'test', 'docs', 'mappings', 'bench', 'scripts', 'proto', 'deploy'];
const SRC = [...new Set(tracked.filter((f) => f.startsWith('src/') && f.split('/').length > 2).map((f) => f.split('/')[1]!))];

const pathPattern = (folders: readonly string[]) => new RegExp(`(?<![\\w./@:-])((?:${folders.join('|')})/[\\w.\\-/]*[\\w/])`, 'g');
const FROM_ROOT = pathPattern(TOP);
const UNDER_SRC = pathPattern(SRC);

/** What is cited from elsewhere (a public repository, a URL) is not this repository's. */
function withoutCitations(text: string): string {
  return text.replace(/chainguard-dev\/sdk:?[^)\n;]*/g, '').replace(/https?:\/\/\S+/g, '');
}

/** The comments of a TypeScript file, line by line (their line numbers kept). */
function comments(text: string): string[] {
  const lines = text.split('\n');
  let inBlock = false;
  return lines.map((line) => {
    const trimmed = line.trim();
    if (inBlock || trimmed.startsWith('/*')) {
      inBlock = !trimmed.includes('*/');
      return line;
    }
    const at = line.indexOf('// ');
    return at >= 0 ? line.slice(at) : '';
  });
}

/** Whether a named path is there: a file, or a folder (named with or without its slash). */
function exists(path: string): boolean {
  return /[*<>{}…]/.test(path) || existsSync(ROOT + path.replace(/\/$/, ''));
}

/** Each mention of a path that does not exist, as `file:line: path`. */
function missing(file: string, lines: readonly string[], shortUnderSrc: boolean): string[] {
  const found: string[] = [];
  lines.forEach((raw, i) => {
    const line = withoutCitations(raw);
    for (const [, path] of line.matchAll(FROM_ROOT)) if (!exists(path!)) found.push(`${file}:${i + 1}: ${path}`);
    if (!shortUnderSrc) return;
    for (const [, path] of line.matchAll(UNDER_SRC)) {
      // A v1 or v2 URL path (`/iam/v1/groups`) is not a file; a short path names a file under src/ or mappings/.
      if (!/\.\w+$/.test(path!)) continue;
      if (!exists(`src/${path}`) && !exists(path!)) found.push(`${file}:${i + 1}: ${path} (under src/)`);
    }
  });
  return found;
}

describe('the repository paths the prose names', () => {
  it('README.md, docs/ and the other READMEs name only paths that exist', () => {
    const docs = tracked.filter((f) => f.endsWith('.md') && !f.startsWith('src/emulator/'));
    expect(docs.length).toBeGreaterThan(3);
    const stale = docs.flatMap((f) => missing(f, readFileSync(ROOT + f, 'utf8').split('\n'), f === 'docs/design.md'));
    expect(stale).toEqual([]);
  });

  it("the comments of src/ and mappings/ name only paths that exist", () => {
    const code = tracked.filter((f) => /^(src|mappings)\/.*\.ts$/.test(f) && !f.startsWith('src/emulator/'));
    expect(code.length).toBeGreaterThan(100);
    const stale = code.flatMap((f) => missing(f, comments(readFileSync(ROOT + f, 'utf8')), true));
    expect(stale).toEqual([]);
  });

  it('no comment or doc cites a file outside the repository', () => {
    const texts = tracked.filter((f) => /^(src|mappings|test|docs)\/.*\.(ts|md)$/.test(f) || f === 'README.md')
      .filter((f) => !f.startsWith('src/emulator/') && !f.startsWith('test/emulator/') && f !== 'test/docs/paths.test.ts');
    const cites = texts.flatMap((f) => readFileSync(ROOT + f, 'utf8').split('\n')
      .flatMap((line, i) => (/api-surface(\.md)?\b|v2beta1-service\.md|ARCHITECTURE\.md/.test(line) ? [`${f}:${i + 1}`] : [])));
    expect(cites).toEqual([]);
  });
});
