/**
 * A PATCH as the render stage applies it inside a backend's read-modify-write:
 * the backend reads the current row, hands its v2 document here, and writes
 * what comes back. The merge (merge.ts) and the mapping's rules are applied
 * here once, for both modes; the backend only reads and writes.
 */
import type { ZodType } from 'zod';
import { validate } from './validate.ts';
import type { Json } from '../vocabulary/json.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import type { Patch } from '../port/backend.ts';
import { mergeUpdate, validationScope } from './merge.ts';

/**
 * The patch for one read update request (`value` in JSON names, `paths` from the mask or the body's keys);
 * `rules`: what the system of record holds writes to beyond the mapping's (RowConversion.rules).
 */
export function patchOf(mapping: Pick<ResourceMapping, 'fields' | 'validate' | 'requiredOneofs'>, value: Json, paths: readonly string[], rules?: ZodType): Patch {
  return {
    paths,
    apply(current) {
      const merged = mergeUpdate(mapping.fields, current, value, paths);
      const scope = validationScope(mapping.fields, paths);
      validate(mapping, merged.document, scope);
      if (rules) validate({ fields: {}, validate: rules }, merged.document, scope);
      return merged;
    },
  };
}
