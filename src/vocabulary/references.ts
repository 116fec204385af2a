/**
 * References, declared once per mapping (`ResourceMapping.references`): an
 * output field that shows another resource as it is now, picked from that
 * resource's v2 document. Which of a reference's values a backend's rows
 * already carry is the backend's to say (its row conversion); the render stage
 * fills the rest (render/references.ts). Pure.
 */
import { isInRoot, parentOf } from '../uidp.ts';
import { getPath, type Json } from './json.ts';
import type { FieldSpec, Reference, ResourceMapping } from './resource.ts';

/** The uid a reference points at from a resource's document, or undefined when unset. */
export function referencedUid(reference: Reference, document: Json): string | undefined {
  let uid: unknown;
  if (reference.by === '@parent' || reference.by === '@root') {
    const own = document.uid;
    if (typeof own !== 'string' || own === '') return undefined;
    uid = reference.by === '@root' ? own.split('/')[0] : isInRoot(own) ? '' : parentOf(own);
  } else {
    uid = getPath(document, reference.by);
  }
  return typeof uid === 'string' && uid !== '' ? uid : undefined;
}

/** Whether a backend's rows hold a field's value themselves (then a reference does not fill it). */
export type Carries = (spec: FieldSpec) => boolean;

/** One reference a backend's rows leave (partly) unfilled. */
export interface ReferenceToFill {
  readonly field: string;
  readonly reference: Reference;
  /** The picked sub-fields to fill, or `whole`: the rows carry none of the field, which the pick replaces. */
  readonly fill: readonly string[] | 'whole';
}

const PLANS = new WeakMap<ResourceMapping, WeakMap<Carries, readonly ReferenceToFill[]>>();

/** The references of a mapping that rows of a backend leave to fill (worked out once per mapping and backend). */
export function referencesToFill(mapping: ResourceMapping, carries: Carries): readonly ReferenceToFill[] {
  let byBackend = PLANS.get(mapping);
  if (!byBackend) PLANS.set(mapping, (byBackend = new WeakMap()));
  let plan = byBackend.get(carries);
  if (!plan) byBackend.set(carries, (plan = planReferences(mapping, carries)));
  return plan;
}

function planReferences(mapping: ResourceMapping, carries: Carries): ReferenceToFill[] {
  const plan: ReferenceToFill[] = [];
  for (const [field, reference] of Object.entries(mapping.references ?? {})) {
    const spec = mapping.fields[field];
    if (!spec) throw new Error(`${mapping.name}: reference "${field}" names no field`);
    if (!carries(spec)) {
      plan.push({ field, reference, fill: 'whole' });
      continue;
    }
    if (typeof reference.pick === 'string') continue;
    const lacking = Object.keys(reference.pick).filter((sub) => {
      const subSpec = spec.fields?.[sub];
      return subSpec !== undefined && !carries(subSpec);
    });
    if (lacking.length > 0) plan.push({ field, reference, fill: lacking });
  }
  return plan;
}
