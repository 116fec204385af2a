import { describe, expect, it } from 'vitest';
import { EmulatorState } from '../../src/emulator/v1/state.ts';
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

describe("a state's UIDs from given bytes (uidBytes)", () => {
  const counting = () => {
    let n = 0;
    return (size: number) => Buffer.alloc(size, n++);
  };
  const seeded = () => {
    const state = new EmulatorState({ uidBytes: counting(), clock: () => 1_700_000_000_000_000 });
    const org = state.createGroup(null, { name: 'org' });
    return [org, state.createGroup(org.id, { name: 'team' })];
  };

  it('mints the same rows in two states given the same bytes and clock, still well-formed', () => {
    const [a, b] = [seeded(), seeded()];
    expect(a).toEqual(b);
    for (const group of a) expect(isUidp(group!.id)).toBe(true);
  });
});
