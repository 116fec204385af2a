/**
 * The batch-create request (`POST <collection>:batchCreate`, body `*`):
 * `{parent, requests: [{parent?, <resource>: {...}}], <inherit>?}`. Reads it
 * into one create body per sub-request, in order, applying the inherited
 * top-level field. Pure.
 */
import { invalidField } from '../aip/errors.ts';
import { camelToSnake } from '../aip/names.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import { isObject, type Json } from '../vocabulary/json.ts';

export interface BatchRequest {
  parent: string;
  /** One create body per sub-request, in request order. */
  items: Json[];
  /** The request key of each item's resource, for error paths (`roleBinding`). */
  singular: string;
}

/** The resource's singular JSON name, from its AIP type: `iam.chainguard.dev/RoleBinding` → `roleBinding`. */
export function singularName(mapping: ResourceMapping): string {
  const type = mapping.resourceType.split('/').pop()!;
  return type.charAt(0).toLowerCase() + type.slice(1);
}

/** A body value under its JSON or proto name. */
function field(body: Json, name: string): unknown {
  return body[name] ?? body[camelToSnake(name)];
}

export function parseBatch(mapping: ResourceMapping, pathParent: string, body: Json): BatchRequest {
  const method = mapping.methods?.batchCreate;
  if (!method) throw new Error(`${mapping.name} declares no batch create`);
  const singular = singularName(mapping);

  const bodyParent = field(body, 'parent');
  if (bodyParent !== undefined && typeof bodyParent !== 'string') throw invalidField('parent', 'must be a string');
  if (pathParent && bodyParent && bodyParent !== pathParent) throw invalidField('parent', 'differs from the parent in the path');
  const parent = pathParent || (bodyParent as string | undefined) || '';

  const requests = field(body, 'requests');
  if (!Array.isArray(requests) || requests.length === 0) throw invalidField('requests', 'must hold at least one request');
  if (requests.length > method.max) throw invalidField('requests', `must hold at most ${method.max} requests, not ${requests.length}`);

  const inherited = method.inherit ? field(body, method.inherit) : undefined;
  const items = requests.map((request: unknown, i) => {
    const at = `requests[${i}]`;
    if (!isObject(request)) throw invalidField(at, 'must be an object');
    const own = field(request, 'parent');
    if (own !== undefined && own !== '' && own !== parent) throw invalidField(`${at}.parent`, 'must be empty or equal the batch parent');
    const resource = field(request, singular);
    if (!isObject(resource)) throw invalidField(`${at}.${singular}`, 'is required');
    const item = { ...resource };
    if (method.inherit && inherited !== undefined && inherited !== '') {
      const mine = field(item, method.inherit);
      if (mine === undefined || mine === '') item[method.inherit] = inherited;
      else if (mine !== inherited) throw invalidField(`${at}.${singular}.${method.inherit}`, `conflicts with the batch's ${method.inherit}`);
    }
    return item;
  });
  return { parent, items, singular };
}
