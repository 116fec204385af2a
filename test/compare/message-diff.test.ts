/**
 * The comparison core on the contract's own messages: what proto3 says is the
 * same value is equal, and each kind of real difference gets its path and class.
 */
import { describe, expect, it } from 'vitest';
import type { DescMessage } from '@bufbuild/protobuf';
import { contract } from '../../src/contract/registry.ts';
import { diffMessages } from '../../src/compare/message-diff.ts';
import { compareOutcomes, STATUS_PATH } from '../../src/compare/compare-outcomes.ts';
import { errorOutcome } from '../../src/compare/outcome.ts';
import { worstClass } from '../../src/compare/classes.ts';

const message = (name: string): DescMessage => contract.getMessage(`chainguard.platform.iam.v2beta1.${name}`)!;
const Group = message('Group');
const Role = message('Role');
const ListGroups = message('ListGroupsResponse');
const plain = { ordered: false, created: false };

const group = { uid: 'a1/b2', name: 'eng', description: 'the team', verified: true, createTime: '2024-01-02T03:04:05.123Z', kind: 'ORG_KIND_UNSPECIFIED' };

describe('equal under proto3', () => {
  it('treats an absent field as its zero value', () => {
    expect(diffMessages(Group, { uid: 'a1/b2', name: 'eng' }, { uid: 'a1/b2', name: 'eng', description: '', verified: false, resourceLimits: {} }, plain)).toEqual([]);
  });
  it('reads enums by name or number, int64 as string or number', () => {
    expect(diffMessages(Group, { name: 'x', kind: 0 }, { name: 'x', kind: 'ORG_KIND_UNSPECIFIED' }, plain)).toEqual([]);
    expect(diffMessages(ListGroups, { totalCount: 3 }, { totalCount: '3' }, plain)).toEqual([]);
  });
  it('reads timestamps by value and ignores key order', () => {
    expect(diffMessages(Group, { createTime: '2024-01-02T03:04:05.123Z', name: 'x' }, { name: 'x', createTime: '2024-01-02T03:04:05.123000Z' }, plain)).toEqual([]);
    expect(diffMessages(Group, { resourceLimits: { a: 1, b: 2 } }, { resourceLimits: { b: 2, a: 1 } }, plain)).toEqual([]);
  });
  it('compares page tokens by presence', () => {
    expect(diffMessages(ListGroups, { nextPageToken: 'abc' }, { nextPageToken: 'xyz' }, plain)).toEqual([]);
    expect(diffMessages(ListGroups, { nextPageToken: 'abc' }, {}, plain)).toEqual([{ path: 'nextPageToken', class: 'dataLoss' }]);
  });
  it('compares rows as sets keyed by uid when no order was asked for, in order when it was', () => {
    const a = { groups: [{ ...group, uid: 'a1/x' }, { ...group, uid: 'a1/y' }] };
    const b = { groups: [{ ...group, uid: 'a1/y' }, { ...group, uid: 'a1/x' }] };
    expect(diffMessages(ListGroups, a, b, plain)).toEqual([]);
    expect(diffMessages(ListGroups, a, b, { ordered: true, created: false })).toEqual([{ path: 'groups[].uid', class: 'value' }]);
  });
  it('compares what a create assigns (uid, times) by shape only', () => {
    const made = { ...group, uid: 'a1/c3', createTime: '2025-05-05T00:00:00Z', updateTime: '2025-05-05T00:00:00Z' };
    const other = { ...group, uid: 'a1/d4', createTime: '2025-05-05T00:00:01.5Z', updateTime: '2025-05-05T00:00:01.5Z' };
    expect(diffMessages(Group, made, other, { ordered: false, created: true })).toEqual([]);
    expect(diffMessages(Group, made, other, plain).map((d) => d.path).sort()).toEqual(['createTime', 'uid', 'updateTime']);
    expect(diffMessages(Group, made, { ...other, createTime: undefined }, { ordered: false, created: true })).toEqual([{ path: 'createTime', class: 'dataLoss' }]);
  });
});

describe('differences, by path and class', () => {
  it('names a field present on one side only as dataLoss, a changed value as value', () => {
    expect(diffMessages(Group, group, { ...group, description: '' }, plain)).toEqual([{ path: 'description', class: 'dataLoss' }]);
    expect(diffMessages(Group, group, { ...group, name: 'ops' }, plain)).toEqual([{ path: 'name', class: 'value' }]);
  });
  it('names text differing only in case or spacing as cosmetic', () => {
    expect(diffMessages(Group, group, { ...group, description: ' The  team' }, plain)).toEqual([{ path: 'description', class: 'cosmetic' }]);
  });
  it('names list elements with [] and map entries with {}', () => {
    const a = { groups: [group] };
    expect(diffMessages(ListGroups, a, { groups: [{ ...group, resourceLimits: { seats: 2 } }] }, plain)).toEqual([{ path: 'groups[].resourceLimits{}', class: 'dataLoss' }]);
    expect(diffMessages(Role, { name: 'r', capabilities: ['CAP_IAM_GROUPS_LIST', 'CAP_IAM_GROUPS_CREATE'] }, { name: 'r', capabilities: ['CAP_IAM_GROUPS_CREATE', 'CAP_IAM_GROUPS_LIST'] }, plain))
      .toEqual([{ path: 'capabilities[]', class: 'cosmetic' }]);
  });
  it('names a row one side hides from a List as access', () => {
    const a = { groups: [group, { ...group, uid: 'a1/z9' }] };
    const d = diffMessages(ListGroups, a, { groups: [group] }, plain);
    expect(d).toEqual([{ path: 'groups[]', class: 'access' }]);
  });
  it('keeps one entry per path, at its most severe class', () => {
    const a = { groups: [group, { ...group, uid: 'a1/z9' }] };
    const b = { groups: [{ ...group, name: 'x' }, { ...group, uid: 'a1/z9', description: '' }] };
    expect(diffMessages(ListGroups, a, b, plain).sort((x, y) => x.path.localeCompare(y.path)))
      .toEqual([{ path: 'groups[].description', class: 'dataLoss' }, { path: 'groups[].name', class: 'value' }]);
  });
});

describe('outcomes', () => {
  const denied = errorOutcome(7, [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'PERMISSION_DENIED' }]);
  const answered = { kind: 'answer' as const, message: group };
  it('compares errors by code, reason and detail types, never their wording', () => {
    const a = errorOutcome(3, [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_ARGUMENT', metadata: { requestId: '1' } }, { '@type': 'type.googleapis.com/google.rpc.BadRequest' }]);
    const b = errorOutcome(3, [{ '@type': 'x/google.rpc.BadRequest', fieldViolations: [] }, { '@type': 'x/google.rpc.ErrorInfo', reason: 'INVALID_ARGUMENT', metadata: { requestId: '2' } }]);
    expect(compareOutcomes(Group, a, b, plain)).toEqual([]);
    expect(compareOutcomes(Group, a, errorOutcome(3, [{ '@type': 'x/google.rpc.ErrorInfo', reason: 'INVALID_ARGUMENT' }]), plain)).toEqual([{ path: '(status).details', class: 'value' }]);
    expect(compareOutcomes(Group, a, errorOutcome(9, []), plain)).toEqual([{ path: STATUS_PATH, class: 'value' }]);
  });
  it('names an answer against a denial as access', () => {
    expect(worstClass(compareOutcomes(Group, answered, denied, plain))).toBe('access');
    expect(worstClass(compareOutcomes(Group, errorOutcome(13, []), answered, plain))).toBe('value');
  });
  it('compares nothing when a side did not answer', () => {
    expect(compareOutcomes(Group, answered, { kind: 'unanswered', why: 'timeout' }, plain)).toEqual([]);
  });
});

describe('text fields alone differing (read as they are, without making the messages)', () => {
  it('find what the messages made would: the same paths and classes, in the message\'s field order', () => {
    // The answers' keys in another order than the message's fields: the differences still come in the fields' order.
    const { description, ...rest } = group;
    const reordered = { description, ...rest };
    expect(diffMessages(Group, reordered, { ...group, description: 'the team (as the candidate has it)', name: 'ENG' }, plain)).toEqual([{ path: 'name', class: 'cosmetic' }, { path: 'description', class: 'value' }]);
    // Text composed one way and the other, in another case: the same words.
    expect(diffMessages(Group, { ...group, description: 'caf\u00e9' }, { ...group, description: 'CAFE\u0301' }, plain)).toEqual([{ path: 'description', class: 'cosmetic' }]);
    expect(diffMessages(Group, { ...group, description: undefined }, { ...group, description: '' }, plain)).toEqual([]);
    expect(diffMessages(Group, { name: 'x' }, { name: 'x', description: 'more' }, plain)).toEqual([{ path: 'description', class: 'dataLoss' }]);
  });
  it('compare what a create assigns (uid) by shape only', () => {
    expect(diffMessages(Group, group, { ...group, uid: 'a1/c3' }, { ordered: false, created: true })).toEqual([]);
    expect(diffMessages(Group, group, { ...group, uid: 'a1' }, { ordered: false, created: true })).toEqual([{ path: 'uid', class: 'dataLoss' }]);
  });
  it('leave text protobuf would refuse (a lone surrogate) to the messages, which cannot be made', () => {
    expect(diffMessages(Group, group, { ...group, description: 'the team\ud800' }, plain)).toEqual([{ path: '(message)', class: 'value' }]);
  });
  it('leave a field by its proto name, or a key the contract does not have, to the messages', () => {
    expect(diffMessages(ListGroups, { nextPageToken: 'abc' }, { next_page_token: 'xyz' }, plain)).toEqual([]);
    expect(diffMessages(Group, group, { ...group, notAField: 'x' }, plain)).toEqual([]);
  });
});
