/**
 * Hydration, one mechanism for both modes: the references a backend's rows
 * leave unfilled (vocabulary/references.ts) are filled from the referenced
 * resources' v2 documents. The uids a page needs are gathered first and
 * fetched through the backend port's rows-by-id in one call for the page
 * (deduplicated, batched and cached there as the backend can), never one per row.
 */
import type { BackendPort } from '../port/backend.ts';
import type { RequestContext } from '../request/context.ts';
import { currentSpan, inChildSpan } from '../observability/tracing.ts';
import { getPath, type Json } from '../vocabulary/json.ts';
import { referencedUid, referencesToFill } from '../vocabulary/references.ts';
import type { FieldSpec, Reference, ResourceMapping } from '../vocabulary/resource.ts';
import { normalize, zeroOf } from '../vocabulary/document.ts';

/** Sets, in place, every reference value the backend's rows left unfilled in `docs`. */
export async function fillReferences(mapping: ResourceMapping, docs: readonly Json[], port: BackendPort, ctx: RequestContext): Promise<void> {
  const plan = referencesToFill(mapping, port.rows.carries);
  if (plan.length === 0 || docs.length === 0) return;

  // Every uid is read before any value is set: a reference may be found through a field another one replaces.
  const uids = docs.map((doc) => plan.map(({ reference }) => referencedUid(reference, doc)));
  const wanted = new Map<string, Set<string>>();
  for (const row of uids) {
    plan.forEach(({ reference }, i) => {
      const uid = row[i];
      if (!uid) return;
      const ids = wanted.get(reference.kind) ?? new Set<string>();
      ids.add(uid);
      wanted.set(reference.kind, ids);
    });
  }
  const lookups = [...wanted.values()].reduce((sum, ids) => sum + ids.size, 0);
  const asked = new Map([...wanted].map(([kind, ids]) => [kind, [...ids]]));
  // A step of the request's trace: the backend's reads (v1 calls, store queries) are this span's children.
  const parent = ctx.trace ?? currentSpan();
  const found = await inChildSpan(parent, `hydrate ${mapping.name}`, { 'v2gw.resource': mapping.name, 'v2gw.hydration.lookups': lookups },
    (span) => port.readByIds(asked, span === ctx.trace ? ctx : { ...ctx, trace: span }));

  docs.forEach((doc, d) => {
    plan.forEach(({ field, reference, fill }, i) => {
      const spec = mapping.fields[field]!;
      const uid = uids[d]![i];
      const row = uid ? found.get(reference.kind)?.get(uid) : undefined;
      const target = row === undefined ? undefined : port.rows.target(reference.kind, row);
      if (fill === 'whole') {
        const value = target ? pick(reference, target, spec) : zeroOf(spec);
        // An optional message whose row is gone is absent, as protojson leaves an unset optional out.
        if (value === undefined) delete doc[field];
        else doc[field] = value;
        return;
      }
      const message = doc[field];
      if (typeof message !== 'object' || message === null) return;
      const picks = reference.pick as Readonly<Record<string, string>>;
      for (const sub of fill) {
        const subSpec = spec.fields![sub]!;
        (message as Json)[sub] = (target ? copied(getPath(target, picks[sub]!)) : undefined) ?? zeroOf(subSpec);
      }
    });
  });
}

/** A copy of a value taken from another document: objects are cloned, primitives (the usual case) are not. */
function copied(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

function pick(reference: Reference, target: Json, spec: FieldSpec): unknown {
  if (typeof reference.pick === 'string') return copied(getPath(target, reference.pick)) ?? zeroOf(spec);
  const picked: Json = {};
  for (const [sub, path] of Object.entries(reference.pick)) picked[sub] = copied(getPath(target, path));
  // Zero-fill (and order) the message like any other, so a referenced field the target lacks still shows.
  return spec.fields ? normalize(spec.fields, picked, { keepOutputOnly: true, dropSecrets: true }) : picked;
}
