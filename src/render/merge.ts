/**
 * The one PATCH merge, in v2 document space, for both modes: the masked paths
 * are copied from the request onto the current document (absent clears, a
 * oneof member displaces its siblings), then the paths that must keep their
 * value (an immutable field not restated, a secret sent empty without being
 * named, a field locked while another is set) are put back. Translate mode
 * merges onto the v1 row rendered as v2 and then writes the merged values into
 * v1's own row (translate/v1-body.ts); native mode stores the merged document.
 * Pure.
 */
import { ownValue } from '../aip/names.ts';
import { invalidField } from '../aip/errors.ts';
import { assignThroughSpecs, flaggedPaths } from '../vocabulary/field-paths.ts';
import { getPath, isObject, type Json } from '../vocabulary/json.ts';
import type { FieldSpec } from '../vocabulary/resource.ts';

type Fields = Readonly<Record<string, FieldSpec>>;

/** A PATCH merged: the document to validate and write, and the written paths that kept their current value. */
export interface Merged {
  /** Not yet normalised, so that validation sees a cleared field as absent. */
  readonly document: Json;
  readonly keep: readonly string[];
}

/**
 * The document after the update. Changing an immutable (or locked) field
 * throws INVALID_ARGUMENT. Neither `current` nor `value` is changed.
 */
export function mergeUpdate(fields: Fields, current: Json, value: Json, paths: readonly string[]): Merged {
  const keep = pathsToKeep(fields, current, value, paths);
  const document = structuredClone(current);
  // Copies share structure with their source: clone the request so restoring a kept value cannot write into it.
  const request = structuredClone(value);
  for (const path of paths) copyV2Path(fields, request, document, path);
  for (const path of keep) {
    // A kept field whose message is gone (another oneof member was chosen) goes with it.
    const cut = path.lastIndexOf('.');
    if (cut < 0 || isObject(getPath(document, path.slice(0, cut)))) copyV2Path(fields, current, document, path);
  }
  return { document, keep };
}

/** Copies the value at a v2 path from one v2 object into another (absent clears it). */
export function copyV2Path(fields: Fields, from: Json, to: Json, path: string): void {
  assignThroughSpecs(fields, to, path, getPath(from, path), (_spec, key) => key, (_spec, value) => value);
}

/**
 * The paths whose rules an update must check. A path inside a oneof member
 * widens to the whole member: setting one field of a member that was not set
 * brings the member's other required fields into play.
 */
export function validationScope(fields: Fields, paths: readonly string[]): string[] {
  return [...new Set(paths.map((path) => {
    const top = path.split('.')[0]!;
    return ownValue(fields, top)?.oneof ? top : path;
  }))];
}

function isCovered(path: string, paths: readonly string[]): boolean {
  return paths.some((p) => path === p || path.startsWith(`${p}.`));
}

/**
 * Checks an update's immutable and secret fields and says which paths must
 * keep their stored value although a written path covers them: an immutable
 * field the request does not restate, and a secret sent empty (or left out)
 * whose own path the mask does not name; likewise a top-level field locked
 * while another is set (`lockedWhileSet`). Changing an immutable or locked
 * field is INVALID_ARGUMENT; restating it is a no-op.
 */
export function pathsToKeep(fields: Fields, current: Json, request: Json, paths: readonly string[]): string[] {
  const keep: string[] = [];
  /** A field the request may restate or leave out (kept) but not change. */
  const fixed = (path: string, why: string) => {
    if (!isCovered(path, paths)) return;
    const wanted = getPath(request, path);
    if (wanted === undefined) keep.push(path);
    else if (JSON.stringify(wanted) !== JSON.stringify(getPath(current, path) ?? null)) throw invalidField(path, why);
  };
  for (const path of flaggedPaths(fields, 'immutable')) fixed(path, 'is immutable: it is set at create and cannot be changed');
  for (const [path, { lockedWhileSet }] of Object.entries(fields)) {
    if (lockedWhileSet && isObject(getPath(current, lockedWhileSet))) fixed(path, `is inherited while ${lockedWhileSet} is set, and cannot be changed here`);
  }
  for (const path of flaggedPaths(fields, 'secret')) {
    if (!isCovered(path, paths) || paths.includes(path)) continue;
    const wanted = getPath(request, path);
    if (wanted === undefined || wanted === '' || wanted === null) keep.push(path);
  }
  return keep;
}
