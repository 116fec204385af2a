/**
 * The gateway's own rules that each backend checks against its own data,
 * written once: the backend counts, the rule decides and words the refusal.
 */
import { failedPrecondition, type ApiError } from '../aip/errors.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';

/**
 * `mapping.delete.refuseWhileParentOf`: a resource that still holds children
 * of these kinds is not deleted (FAILED_PRECONDITION, RESOURCE_NOT_EMPTY).
 * Undefined when nothing is left under it.
 */
export function resourceNotEmpty(mapping: ResourceMapping, uid: string, children: Readonly<Record<string, number>>): ApiError | undefined {
  // Named in the order the mapping declares them, whatever order the counts came in.
  const kinds = mapping.delete?.refuseWhileParentOf ?? Object.keys(children);
  const found = kinds.filter((name) => (children[name] ?? 0) > 0).map((name) => [name, children[name]!] as const);
  if (found.length === 0) return undefined;
  return failedPrecondition([{
    type: 'RESOURCE_NOT_EMPTY',
    subject: `${mapping.resourceType}/${uid}`,
    description: `${uid} still contains ${found.map(([name, count]) => `${count} ${name}`).join(', ')}; delete them first`,
  }]);
}
