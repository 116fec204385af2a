import { describe, expect, it } from 'vitest';
import { isChildOf, parentOf } from '../src/uidp.ts';

const ROOT = 'a'.repeat(40);
const CHILD = `${ROOT}/${'b'.repeat(16)}`;
const GRANDCHILD = `${CHILD}/${'c'.repeat(16)}`;
const OTHER = `${'a'.repeat(39)}f/${'b'.repeat(16)}`;

describe('isChildOf', () => {
  it('is parentOf(child) === parent, for roots, children, grandchildren, prefixes and odd strings', () => {
    const values = [ROOT, CHILD, GRANDCHILD, OTHER, '/', '', 'a', 'a/', '/a', 'a/b', 'ab/c', `${ROOT}/`, `${CHILD}x`, `${ROOT}x/${'b'.repeat(16)}`];
    for (const child of values) {
      for (const parent of values) expect(isChildOf(child, parent), `${child} of ${parent}`).toBe(parentOf(child) === parent);
    }
  });

  it('answers the cases that matter', () => {
    expect(isChildOf(CHILD, ROOT)).toBe(true);
    expect(isChildOf(GRANDCHILD, ROOT)).toBe(false);
    expect(isChildOf(GRANDCHILD, CHILD)).toBe(true);
    expect(isChildOf(OTHER, ROOT)).toBe(false);
    expect(isChildOf(ROOT, '/')).toBe(true);
    expect(isChildOf(`${ROOT}x/${'b'.repeat(16)}`, ROOT)).toBe(false);
  });
});
