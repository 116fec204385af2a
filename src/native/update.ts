/**
 * PATCH on a stored document, with translate mode's rules: the masked paths
 * are copied from the request (absent clears, a oneof member displaces its
 * siblings), then the paths the shared guard says must keep their value (an
 * immutable field not restated, a secret sent empty without being named) are
 * put back. Pure.
 */
import type { FieldSpec } from '../engine/mapping.ts';
import { copyV2Path, getPath, isObject, pathsToKeep, type Json } from '../engine/shape.ts';

type Fields = Readonly<Record<string, FieldSpec>>;

/**
 * The document after the update; not yet normalised, so that validation sees
 * a cleared field as absent, as it does in translate mode. Changing an
 * immutable field throws INVALID_ARGUMENT.
 */
export function applyUpdate(fields: Fields, current: Json, value: Json, paths: readonly string[]): Json {
  const keep = pathsToKeep(fields, current, value, paths);
  const merged = structuredClone(current);
  // Copies share structure with their source: clone the request so restoring a kept value cannot write into it.
  const request = structuredClone(value);
  for (const path of paths) copyV2Path(fields, request, merged, path);
  for (const path of keep) {
    // A kept field whose message is gone (another oneof member was chosen) goes with it.
    const cut = path.lastIndexOf('.');
    if (cut < 0 || isObject(getPath(merged, path.slice(0, cut)))) copyV2Path(fields, current, merged, path);
  }
  return merged;
}
