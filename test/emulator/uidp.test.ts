import { describe, expect, it } from 'vitest';
import { isChildOf, isDescendantOf, isInRoot, isUidp, newChildUid, newRootUid, parentOf } from '../../src/emulator/v1/uidp.ts';

describe("the emulator's UIDPs (api-surface.md §0.3)", () => {
  const root = newRootUid();
  const child = newChildUid(root);
  const grandchild = newChildUid(child);

  it('mints a root UID of 40 lowercase hex characters and child segments of 16, each valid', () => {
    expect(root).toMatch(/^[0-9a-f]{40}$/);
    expect(child.slice(root.length)).toMatch(/^\/[0-9a-f]{16}$/);
    for (const uidp of [root, child, grandchild]) expect(isUidp(uidp)).toBe(true);
    expect(newRootUid()).not.toBe(root);
  });

  it('refuses what the validity pattern refuses', () => {
    for (const bad of ['', '/', root.toUpperCase(), root.slice(1), `${root}/`, `${root}/abc`, `${child}0`, `/${root}`]) expect(isUidp(bad), bad).toBe(false);
  });

  it("drops the last segment for a parent, and a root's parent is /", () => {
    expect(parentOf(grandchild)).toBe(child);
    expect(parentOf(child)).toBe(root);
    expect(parentOf(root)).toBe('/');
  });

  it('tells root level from placed resources', () => {
    expect(isInRoot(root)).toBe(true);
    expect(isInRoot(child)).toBe(false);
  });

  it('holds ancestry strict, and only at a segment boundary', () => {
    expect(isDescendantOf(child, root)).toBe(true);
    expect(isDescendantOf(grandchild, root)).toBe(true);
    expect(isDescendantOf(root, root)).toBe(false);
    expect(isDescendantOf(root, child)).toBe(false);
    // A string prefix is no ancestor: `…/ab` is not below `…/a`.
    expect(isDescendantOf(`${root}/ab`, `${root}/a`)).toBe(false);
  });

  it('answers isChildOf as parentOf(uidp) === parent would, the root level included', () => {
    const cases: Array<[string, string]> = [
      [child, root], [grandchild, child], [grandchild, root], [root, '/'], [child, '/'], [root, child], [child, child], [`${root}/ab`, `${root}/a`],
    ];
    for (const [uidp, parent] of cases) expect(isChildOf(uidp, parent), `${uidp} under ${parent}`).toBe(parentOf(uidp) === parent);
  });
});
