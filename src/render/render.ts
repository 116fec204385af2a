/**
 * The render stage: rows a backend read, as the v2 resources clients see.
 * Each backend's rows become v2 documents through the conversion it declares
 * (BackendPort.rows); then, the same for both modes, the references its rows
 * leave unfilled are filled through the port's rows-by-id (references.ts) and,
 * in native mode, the fields computed at read time are computed.
 */
import type { BackendPort, KeptTimesByUid, RenderRows, RequestContext } from '../port/backend.ts';
import type { Json } from '../vocabulary/json.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import { referencesToFill } from '../vocabulary/references.ts';
import { fillReferences } from './references.ts';

interface Plan {
  /** Native mode computes the mapping's derived fields. */
  readonly derive: boolean;
  /** The backend's rows leave references to fill. */
  readonly fill: boolean;
  /** A filled reference is an optional field, appended when its document lacked it. */
  readonly reorder: boolean;
}

export class RenderStage<Row = unknown> {
  readonly #port: BackendPort<Row>;
  readonly #plans = new WeakMap<ResourceMapping, Plan>();

  constructor(port: BackendPort<Row>) {
    this.#port = port;
  }

  /** The rows as v2 resources (see RenderRows); bound, so it can be handed to a backend as it is. */
  readonly render: RenderRows<Row> = (mapping, rows, ctx, times) => {
    const docs = this.#port.rows.documents(mapping, rows, ctx, times);
    return docs instanceof Promise ? docs.then((made) => this.#complete(mapping, made, ctx)) : Promise.resolve(this.#complete(mapping, docs, ctx));
  };

  /**
   * One row as its v2 resource: a value, not a promise, when nothing is left
   * to read for it (most Gets over v1), so a caller's `then` takes it as it is.
   */
  one(mapping: ResourceMapping, row: Row, ctx: RequestContext, times?: KeptTimesByUid): Json | Promise<Json> {
    const docs = this.#port.rows.documents(mapping, [row], ctx, times);
    const done = docs instanceof Promise ? docs.then((made) => this.#complete(mapping, made, ctx)) : this.#complete(mapping, docs, ctx);
    return done instanceof Promise ? done.then((made) => made[0]!) : done[0]!;
  }

  /** What the documents still need once converted: derived fields and references, where the mapping has any for this backend. */
  #complete(mapping: ResourceMapping, docs: Json[], ctx: RequestContext): Json[] | Promise<Json[]> {
    const plan = this.#plan(mapping);
    if (!plan.derive && !plan.fill) return docs;
    return this.#completeAsync(mapping, docs, ctx, plan);
  }

  async #completeAsync(mapping: ResourceMapping, docs: Json[], ctx: RequestContext, plan: Plan): Promise<Json[]> {
    if (plan.derive) await this.#derive(mapping, docs, ctx);
    if (!plan.fill) return docs;
    await fillReferences(mapping, docs, this.#port as BackendPort, ctx);
    // An optional reference absent from the zero-filled document was appended: put it back in field order.
    if (!plan.reorder) return docs;
    const order = Object.keys(mapping.fields);
    return docs.map((doc) => Object.fromEntries(order.filter((key) => key in doc).map((key) => [key, doc[key]])));
  }

  /** What rendering a mapping's rows from this backend takes beyond the conversion, worked out once per mapping. */
  #plan(mapping: ResourceMapping): Plan {
    let plan = this.#plans.get(mapping);
    if (!plan) {
      const fill = referencesToFill(mapping, this.#port.rows.carries);
      plan = {
        derive: this.#port.rows.mode === 'native' && Object.keys(mapping.native?.derived ?? {}).length > 0,
        fill: fill.length > 0,
        reorder: fill.some(({ field }) => mapping.fields[field]?.optional),
      };
      this.#plans.set(mapping, plan);
    }
    return plan;
  }

  /** Each derived field of each document, from its kind's rows at the documents' uids (one read per field). */
  async #derive(mapping: ResourceMapping, docs: Json[], ctx: RequestContext): Promise<void> {
    const derived = Object.entries(mapping.native?.derived ?? {});
    if (derived.length === 0 || docs.length === 0) return;
    const now = (this.#port.rows.now ?? Date.now)();
    const uids = docs.map((doc) => String(doc.uid));
    for (const [field, { kind, render }] of derived) {
      const found = (await this.#port.readByIds(new Map([[kind, uids]]), ctx)).get(kind);
      docs.forEach((doc, i) => {
        const row = found?.get(uids[i]!);
        doc[field] = render(row === undefined ? undefined : this.#port.rows.target(kind, row), { uid: uids[i]!, now });
      });
    }
  }
}
