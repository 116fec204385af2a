/**
 * Which query parameters a REST route reads, and the refusal of any other.
 *
 * grpc-gateway ignores a query key that names no field of the request message
 * (runtime/query.go logs "field not found" and goes on), so on the real service
 * `?uidp.children=<org>` — a misspelled `uidp.children_of` — lists everything
 * the caller can see, as if no filter had been given. That answer looks right
 * and is not. Refusing instead is safe in the direction that matters: no key
 * the real service ignores can change its answer, so a request the gateway
 * accepts is answered alike by both, and the caller learns of the typo at once.
 * (Unknown *body* keys are discarded, as the real service does: a create
 * answers the resource it made, so a dropped key shows in the answer.)
 */
import type { DescMessage } from '@bufbuild/protobuf';
import { invalidField } from '../../aip/errors.ts';
import { spellings } from '../../aip/names.ts';
import type { Binding } from '../../contract/bindings.ts';
import type { RawQuery } from '../../aip/list-request.ts';

/** How deep a dotted key may reach into singular sub-messages (`uidp.descendants_of` is two). */
const MAX_DEPTH = 4;

/**
 * The keys a route reads from its query string, in both spellings: every field
 * of the request message outside the body (grpc-gateway's rule), dotted into
 * singular sub-messages; the filters and parameters the mapping declares.
 * A body of `*` leaves no query parameters at all.
 */
export function queryKeys(binding: Binding): ReadonlySet<string> {
  const keys = new Set<string>();
  if (binding.body === '*') return keys;
  const walk = (message: DescMessage, prefix: string, depth: number) => {
    for (const field of message.fields) {
      if (depth === 0 && field.name === binding.body) continue;
      const path = `${prefix}${field.name}`;
      // Well-known types (Timestamp, FieldMask, wrappers) are written as one value, as grpc-gateway reads them.
      if (field.fieldKind === 'message' && !field.message.typeName.startsWith('google.protobuf.') && depth < MAX_DEPTH) {
        walk(field.message, `${path}.`, depth + 1);
      } else {
        for (const spelling of spellings(path)) keys.add(spelling);
      }
    }
  };
  walk(binding.method.input, '', 0);
  const declared = [...Object.keys(binding.mapping.filters ?? {}), ...Object.keys(binding.mapping.methods?.lookup?.params ?? {})];
  for (const name of declared) for (const spelling of spellings(name)) keys.add(spelling);
  return keys;
}

const KNOWN = new WeakMap<Binding, ReadonlySet<string>>();

/** Refuses the first query key the route does not read, naming it and, for a list, the keys it does read. */
export function refuseUnknownQueryKeys(binding: Binding, query: RawQuery): void {
  let known = KNOWN.get(binding);
  if (!known) KNOWN.set(binding, (known = queryKeys(binding)));
  for (const key of Object.keys(query)) {
    if (known.has(key)) continue;
    if (known.size === 0) throw invalidField(key, 'is not a query parameter of this method: everything it reads comes from the body');
    const snake = [...known].filter((k) => !/[A-Z]/.test(k));
    const prefix = key.includes('.') ? key.slice(0, key.lastIndexOf('.') + 1) : '';
    const family = snake.filter((k) => prefix && k.startsWith(prefix));
    const hint = `; it reads ${(family.length > 0 ? family : snake).join(', ')}`;
    throw invalidField(key, `is not a query parameter of this method (the real service would ignore it and answer as if it were absent)${hint}`);
  }
}
