/**
 * The render stage: rows a backend read, as the v2 resources clients see.
 * Each backend's rows become v2 documents through the conversion it declares
 * (BackendPort.rows); then, the same for both modes, the references its rows
 * leave unfilled are filled through the port's rows-by-id (references.ts) and,
 * in native mode, the fields computed at read time are computed.
 */
import type { BackendPort, KeptTimesByUid, RenderRows, RequestContext } from '../engine/backend.ts';
import type { Json } from '../vocabulary/json.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import { fillReferences } from './references.ts';

export class RenderStage<Row = unknown> {
  readonly #port: BackendPort<Row>;
  readonly #now: () => number;

  constructor(port: BackendPort<Row>, now: () => number = Date.now) {
    this.#port = port;
    this.#now = now;
  }

  /** The rows as v2 resources (see RenderRows); bound, so it can be handed to a backend as it is. */
  readonly render: RenderRows<Row> = async (mapping, rows, ctx, times) => {
    const docs = await this.#port.rows.documents(mapping, rows, ctx, times);
    if (this.#port.rows.mode === 'native') await this.#derive(mapping, docs, ctx);
    if (!mapping.references) return docs;
    await fillReferences(mapping, docs, this.#port as BackendPort, ctx);
    // An optional reference absent from the zero-filled document was appended: put it back in field order.
    if (!Object.keys(mapping.references).some((field) => mapping.fields[field]?.optional)) return docs;
    const order = Object.keys(mapping.fields);
    return docs.map((doc) => Object.fromEntries(order.filter((key) => key in doc).map((key) => [key, doc[key]])));
  };

  /** One row as its v2 resource. */
  async one(mapping: ResourceMapping, row: Row, ctx: RequestContext, times?: KeptTimesByUid): Promise<Json> {
    return (await this.render(mapping, [row], ctx, times))[0]!;
  }

  /** Each derived field of each document, from its kind's rows at the documents' uids (one read per field). */
  async #derive(mapping: ResourceMapping, docs: Json[], ctx: RequestContext): Promise<void> {
    const derived = Object.entries(mapping.native?.derived ?? {});
    if (derived.length === 0 || docs.length === 0) return;
    const now = this.#now();
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
