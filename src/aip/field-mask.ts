/**
 * Field masks for PATCH (AIP-134 and grpc-gateway's REST rules):
 * - `updateMask=a,b.c` names the paths to change (snake_case or lowerCamel);
 * - `*` replaces every writable field;
 * - no mask: the mask is the set of JSON keys present in the body, recursing
 *   into singular sub-messages and stopping at maps and lists, so an explicit
 *   empty value is in the mask and clears the field.
 * Output-only paths are dropped, never an error. Pure: works on any schema of
 * nested field declarations.
 */
import { invalidField } from './errors.ts';
import { ownValue, snakeToCamel } from './names.ts';

export interface MaskNode {
  fields?: Readonly<Record<string, MaskNode>>;
  repeated?: boolean;
  type?: string;
  outputOnly?: boolean;
}

export type Mask = { kind: 'all' } | { kind: 'paths'; paths: string[] };

const isMessage = (node: MaskNode) => !!node.fields && !node.repeated && node.type !== 'map';

/**
 * Resolves a mask path written with proto (snake) or JSON (camel) segments to
 * the schema's own spelling; undefined when it names no field. Each segment is
 * looked up as written first, because some JSON names are snake_case
 * (`sync_config`). Only the schema's own fields count: `__proto__`,
 * `constructor` and the like name no field.
 */
function resolvePath(fields: Readonly<Record<string, MaskNode>>, path: string): string | undefined {
  let level: Readonly<Record<string, MaskNode>> | undefined = fields;
  const resolved: string[] = [];
  for (const segment of path.split('.')) {
    if (!level) return undefined;
    const name: string = Object.hasOwn(level, segment) ? segment : snakeToCamel(segment);
    const node: MaskNode | undefined = ownValue(level, name);
    if (!node) return undefined;
    resolved.push(name);
    level = isMessage(node) ? node.fields : undefined;
  }
  return resolved.join('.');
}

function isWritable(fields: Readonly<Record<string, MaskNode>>, path: string): boolean {
  let level: Readonly<Record<string, MaskNode>> | undefined = fields;
  for (const segment of path.split('.')) {
    const node: MaskNode | undefined = ownValue(level, segment);
    if (!node || node.outputOnly) return false;
    level = node.fields;
  }
  return true;
}

/** Reads `updateMask`/`update_mask` text; `undefined` when the request has none. */
export function parseMask(raw: string | undefined, fields: Readonly<Record<string, MaskNode>>): Mask | undefined {
  if (raw === undefined) return undefined;
  const entries = raw.split(',').map((p) => p.trim()).filter(Boolean);
  if (entries.length === 0) return undefined;
  if (entries.includes('*')) {
    if (entries.length > 1) throw invalidField('update_mask', '"*" cannot be combined with other paths');
    return { kind: 'all' };
  }
  const paths: string[] = [];
  for (const entry of entries) {
    const path = resolvePath(fields, entry);
    if (!path) throw invalidField('update_mask', `unknown field path "${entry}"`);
    if (isWritable(fields, path) && !paths.includes(path)) paths.push(path);
  }
  return { kind: 'paths', paths };
}

/** The mask implied by a body's keys. The body must already use lowerCamel keys. */
export function maskFromBody(body: Record<string, unknown>, fields: Readonly<Record<string, MaskNode>>): Mask {
  const paths: string[] = [];
  const walk = (value: Record<string, unknown>, level: Readonly<Record<string, MaskNode>>, prefix: string) => {
    for (const [key, child] of Object.entries(value)) {
      const node = ownValue(level, key);
      const path = prefix + key;
      if (!node) throw invalidField(path, `could not find field "${path}" in the resource`);
      if (node.outputOnly) continue;
      if (isMessage(node) && child && typeof child === 'object' && !Array.isArray(child) && Object.keys(child).length > 0) {
        walk(child as Record<string, unknown>, node.fields!, `${path}.`);
      } else {
        paths.push(path);
      }
    }
  };
  walk(body, fields, '');
  return { kind: 'paths', paths };
}

/** Every writable top-level path, which is what `*` means. */
export function writablePaths(fields: Readonly<Record<string, MaskNode>>): string[] {
  return Object.entries(fields).filter(([, node]) => !node.outputOnly).map(([name]) => name);
}

export function maskPaths(mask: Mask, fields: Readonly<Record<string, MaskNode>>): string[] {
  return mask.kind === 'all' ? writablePaths(fields) : mask.paths;
}

/** True when `path` is one of `paths` or lies inside one of them. */
export function coveredBy(path: string, paths: readonly string[]): boolean {
  return paths.some((p) => path === p || path.startsWith(`${p}.`) || p.startsWith(`${path}.`));
}
