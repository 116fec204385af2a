/**
 * Declarations shared by many resources: the UIDP filters every List accepts
 * (chainguard-dev/sdk: proto/platform/common/v1/uidp.platform.proto, the same `UIDPFilter` message on both sides), the
 * id/timestamp renames, and the default orderable fields.
 */
import { z } from 'zod';
import type { FieldSpec, FilterSpec } from '../src/vocabulary/resource.ts';
import type { Orderable } from '../src/aip/order-by.ts';

/** `uidp.*` filters: v1 knows them all, and the gateway re-applies them on the uid. */
export const UIDP_FILTERS: Readonly<Record<string, FilterSpec>> = {
  'uidp.descendants_of': { field: 'uid', op: 'descendantOf', v1: 'uidp.descendantsOf', uidp: true },
  'uidp.children_of': { field: 'uid', op: 'childOf', v1: 'uidp.childrenOf', uidp: true },
  'uidp.ancestors_of': { field: 'uid', op: 'ancestorOf', v1: 'uidp.ancestorsOf', uidp: true },
  'uidp.in_root': { field: 'uid', op: 'inRoot', v1: 'uidp.inRoot' },
  'uidp.ids': { field: 'uid', op: 'in', v1: 'uidp.ids', uidp: true },
};

/** v1 `id` is v2 `uid`. */
export const UID: FieldSpec = { v1: 'id' };

/**
 * v1 `createdAt`/`updatedAt` are v2 `createTime`/`updateTime`. The public v1
 * omits them for several resources (their v1 messages carry no such times:
 * chainguard-dev/sdk: proto/platform/iam/v1/ and proto/platform/registry/v1/); then the gateway's
 * own record of the resource's creation, last change or first sighting stands in.
 */
export const TIMESTAMPS: Readonly<Record<string, FieldSpec>> = {
  createTime: { v1: 'createdAt', kept: 'createTime' },
  updateTime: { v1: 'updatedAt', kept: 'updateTime' },
};

/** Times v1 never has for a resource: only the gateway's record supplies them. */
export const KEPT_TIMESTAMPS: Readonly<Record<string, FieldSpec>> = {
  createTime: { v1: null, kept: 'createTime' },
  updateTime: { v1: null, kept: 'updateTime' },
};

/** A protobuf Duration in JSON: seconds with an `s` suffix, e.g. `"3600s"` or `"1.5s"`. */
export const DURATION_TEXT = z.string().regex(/^\d+(\.\d{1,9})?s$/, 'must be a duration such as "3600s"');

/** The spec's examples order by `created_at`, a storage-style name; accept it beside the field names. */
export const TIMESTAMP_ALIASES: Readonly<Record<string, string>> = {
  created_at: 'createTime',
  updated_at: 'updateTime',
};

export const ORDER_BY_NAME_AND_TIME: Orderable = {
  fields: ['uid', 'name', 'createTime', 'updateTime'],
  aliases: TIMESTAMP_ALIASES,
  default: 'uid asc',
};

/**
 * A string's form, for a field the contract marks REQUIRED: whether it is set
 * is the contract's to say (render/validate.ts checks it), so a rule built on
 * this ends `.optional()` and says only what a value must look like.
 */
export function text(): z.ZodString {
  return z.string({ error: 'must be a string' });
}

/**
 * A string field the request must carry although the contract does not mark it
 * REQUIRED (a rule of the gateway's own); zod's own wording would speak of "undefined".
 */
export function requiredString(): z.ZodString {
  return z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') });
}

export const UIDP_TEXT = z.string().regex(/^[0-9a-f]{40}(?:\/[0-9a-f]{16})*$/, 'must be a valid UIDP');
