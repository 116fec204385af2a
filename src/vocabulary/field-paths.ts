/**
 * Walking a v2 field path through the field specs, for any target shape: the
 * one place a oneof member displaces its siblings, whether the target is a v2
 * document (a PATCH merge) or a v1 write body (the v1 adapter).
 */
import { ownValue } from '../aip/names.ts';
import { getPath, isObject, setPath, type Json } from './json.ts';
import type { FieldSpec } from './resource.ts';

type Fields = Readonly<Record<string, FieldSpec>>;

/**
 * Sets the value at a v2 path inside `target`, walking the specs so that each
 * level uses the target's own key (`keyOf`) and value form (`convert`).
 * `undefined` clears; a path under a sub-message that does not exist is then
 * left alone rather than created. Setting a oneof member, at any depth, clears
 * its siblings, as protobuf would.
 */
export function assignThroughSpecs(
  fields: Fields,
  target: Json,
  v2Path: string,
  value: unknown,
  keyOf: (spec: FieldSpec, key: string) => string | null,
  convert: (spec: FieldSpec, value: unknown) => unknown,
): void {
  const segments = v2Path.split('.');
  let level = fields;
  let node = target;
  for (let i = 0; i < segments.length; i++) {
    const key = segments[i]!;
    const spec = ownValue(level, key);
    if (!spec) return;
    const targetKey = keyOf(spec, key);
    if (targetKey === null) return;
    if (spec.oneof && value !== undefined && value !== null) {
      for (const [siblingKey, sibling] of Object.entries(level)) {
        if (siblingKey === key || sibling.oneof !== spec.oneof) continue;
        const siblingTarget = keyOf(sibling, siblingKey);
        if (siblingTarget && siblingTarget !== '.') setPath(node, siblingTarget, undefined);
      }
    }
    if (i === segments.length - 1) {
      setPath(node, targetKey, convert(spec, value));
      return;
    }
    if (targetKey !== '.') {
      if (!isObject(getPath(node, targetKey))) {
        if (value === undefined) return;
        setPath(node, targetKey, {});
      }
      node = getPath(node, targetKey) as Json;
    }
    level = spec.fields ?? {};
  }
}

/** The v2 paths of every field with the given flag, nested ones included. */
export function flaggedPaths(fields: Fields, flag: 'secret' | 'immutable', prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, spec] of Object.entries(fields)) {
    if (spec[flag]) out.push(prefix + key);
    else if (spec.fields && !spec.repeated) out.push(...flaggedPaths(spec.fields, flag, `${prefix}${key}.`));
  }
  return out;
}
