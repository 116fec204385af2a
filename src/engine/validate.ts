/** Mapping validation rules (zod) as AIP-193 BadRequest errors. */
import type { ZodType } from 'zod';
import { coveredBy } from '../aip/field-mask.ts';
import { invalidArgument, type FieldViolation } from '../aip/errors.ts';

/**
 * Checks `value`; with `onlyPaths`, reports only rules on those paths, so an
 * update is not refused for an untouched field that v1 holds in a form v2
 * would not accept. `fieldPrefix` places the value inside a larger request
 * (`requests[2].roleBinding.`).
 */
export function validate(schema: ZodType | undefined, value: unknown, onlyPaths?: readonly string[], fieldPrefix = ''): void {
  if (!schema) return;
  const result = schema.safeParse(value);
  if (result.success) return;
  const violations: FieldViolation[] = [];
  for (const issue of result.error.issues) {
    const field = issue.path.map(String).join('.') || 'body';
    if (onlyPaths && !coveredBy(field, onlyPaths)) continue;
    if (!violations.some((v) => v.field === fieldPrefix + field)) violations.push({ field: fieldPrefix + field, description: issue.message });
  }
  if (violations.length > 0) throw invalidArgument(violations);
}
