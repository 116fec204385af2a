/**
 * Runs an operation: the steps every backend would otherwise repeat — reading
 * and validating the request, UIDP checks, page-token and list-query reading,
 * the update mask and the PATCH merge (render/patch.ts), batch parsing,
 * per-resource serialisation of read-modify-writes, and the deadline — then
 * the backend's I/O, whose rows the render stage (render/render.ts) renders.
 */
import { invalidArgument, invalidField } from '../aip/errors.ts';
import { checkInput } from '../aip/input-limits.ts';
import { asQuery, parseListParams, singleParam } from '../aip/list-request.ts';
import { windowRows } from '../aip/list-window.ts';
import { formatOrderBy, parseOrderBy } from '../aip/order-by.ts';
import { spellings } from '../aip/names.ts';
import { queryFingerprint, type PageTokenCodec } from '../aip/page-token.ts';
import { canonicalResponse, missingRequired } from '../contract/request-message.ts';
import { parseBatch } from './batch-request.ts';
import type { CustomList, RequestPages } from '../vocabulary/custom-method.ts';
import type { BackendPort, Page } from '../port/backend.ts';
import { KeyedMutex } from './keyed-mutex.ts';
import { readListQuery } from '../port/list-query.ts';
import { getPath, type Json } from '../vocabulary/json.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import { readBody, readUpdate } from '../render/request-body.ts';
import { validate } from '../render/validate.ts';
import { patchOf } from '../render/patch.ts';
import { RenderStage } from '../render/render.ts';
import { isUidp, parentOf } from '../uidp.ts';
import { requireGrantWithin } from '../vocabulary/role-grants.ts';
import { abortReason, type RequestContext } from '../request/context.ts';
import { within } from '../observability/tracing.ts';
import type { Operation } from '../port/operation.ts';
import { asListed } from './list-view.ts';

export class OperationRunner {
  readonly #backend: BackendPort;
  readonly #stage: RenderStage;
  readonly #tokens: PageTokenCodec;
  /** Serialises read-modify-writes of one resource within this process, whichever backend does the writing. */
  readonly #writes = new KeyedMutex();
  /** Told, once each operation's backend work is over, how many v1 calls it made (for metrics). */
  readonly #onDone: ((v1Calls: number) => void) | undefined;

  constructor(backend: BackendPort, tokens: PageTokenCodec, onDone?: (v1Calls: number) => void) {
    this.#backend = backend;
    this.#stage = new RenderStage(backend);
    backend.renderThrough(this.#stage.render);
    this.#tokens = tokens;
    this.#onDone = onDone;
  }

  /** Not `async`: the answer is the race's own promise, not one more wrapped around it. */
  execute(op: Operation, ctx: RequestContext): Promise<Json> {
    if (ctx.signal.aborted) return Promise.reject(abortReason(ctx));
    let answer: Promise<Json>;
    try {
      // The request's span is the ambient one of what runs below (the store's queries are its children).
      answer = ctx.trace?.recording ? within(ctx.trace, () => this.#run(op, ctx)) : this.#run(op, ctx);
    } catch (error) {
      // A request refused before any work (its input, its uid) is an answer too, as an async function gives it.
      return Promise.reject(error);
    }
    if (this.#onDone) {
      const done = () => this.#onDone!(ctx.counter.v1Calls);
      answer.then(done, done);
    }
    // The deadline and the caller's cancellation end the request even while the backend is busy.
    return ctx.signal.aborted ? Promise.reject(abortReason(ctx)) : raceAbort(answer, ctx);
  }

  /** A List-shaped custom method: every matching row from the backend, windowed and paged here. */
  async #customList(op: Extract<Operation, { kind: 'custom' }>, list: CustomList, ctx: RequestContext): Promise<Json> {
    const { pageSize, pageToken, orderBy, skip, ...asked } = op.request;
    const params = parseListParams(asQuery({ pageSize, pageToken, orderBy, skip }));
    const order = parseOrderBy(params.orderBy, list.order);
    const { pages, fingerprint } = this.#pages(op, formatOrderBy(order));
    const cursor = pages.cursor;
    const answer = await this.#backend.custom(op.custom, asked, ctx, pages);
    const rows = answer[list.items];
    if (!Array.isArray(rows)) throw new Error(`custom list ${op.method.name} answered no "${list.items}"`);
    const read = (row: Json, field: string) => (field === 'uid' ? list.key(row) : getPath(row, field));
    const window = windowRows(rows as Json[], { order, pageSize: params.pageSize, skip: params.skip, cursor }, read);
    const page: RenderedPage = { items: window.page, total: window.total, skipped: window.skipped, ...(window.next ? { next: window.next } : {}) };
    return canonicalResponse(op.method.output, this.#envelope(list.items, fingerprint, page));
  }

  /**
   * A custom request's page tokens, bound to every field but the paging ones
   * (page size, token and skip may change between pages; the order may not).
   */
  #pages(op: Extract<Operation, { kind: 'custom' }>, order: string | undefined): { pages: RequestPages; fingerprint: string } {
    const { pageSize: _size, pageToken, skip: _skip, ...asked } = op.request;
    // A list the runner orders binds its canonical order, not the text that asked for it.
    if (order !== undefined) delete asked.orderBy;
    const fingerprint = queryFingerprint({ rpc: `${op.method.parent.typeName}.${op.method.name}`, request: asked, ...(order ? { order } : {}) });
    const token = typeof pageToken === 'string' && pageToken ? pageToken : undefined;
    const cursor = token ? this.#tokens.open(token, fingerprint) : undefined;
    return { fingerprint, pages: { cursor, seal: (next) => this.#tokens.seal(fingerprint, next) } };
  }

  #envelope(name: string, fingerprint: string, page: RenderedPage): Json {
    return envelope(name, page.next ? this.#tokens.seal(fingerprint, page.next) : undefined, page);
  }

  /** A created value: the mapping's rules and the contract's, then what the system of record adds (v1's limits). */
  #validate(mapping: ResourceMapping, value: Json, fieldPrefix = ''): void {
    validate(mapping, value, undefined, fieldPrefix);
    const rules = this.#backend.rows.rules?.(mapping);
    if (rules) validate({ fields: {}, validate: rules }, value, undefined, fieldPrefix);
  }

  #run(op: Operation, ctx: RequestContext): Promise<Json> {
    const backend = this.#backend;
    const stage = this.#stage;
    const { mapping } = op;
    // Nesting, NUL, lone surrogates and oversized strings, anywhere in the request, before any reading.
    checkInput(op.kind === 'custom' ? { body: op.request } : op);
    switch (op.kind) {
      case 'list': {
        const query = readListQuery(mapping, op.query, this.#tokens);
        return backend.list(mapping, query, ctx).then(({ rows, times, ...page }) => stage.render(mapping, rows, ctx, times)
          .then((items) => this.#envelope(mapping.name, query.fingerprint, { ...page, items: items.map((item) => asListed(mapping.fields, item)) })));
      }
      case 'get':
        requireUidp('uid', op.uid);
        return backend.read(mapping, op.uid, ctx).then((row) => stage.one(mapping, row, ctx));
      case 'create': {
        // An empty parent creates a root only where the mapping says so (organisations).
        if (op.parent !== '' || mapping.create?.parent !== 'optional') requireUidp('parent', op.parent);
        // protojson discards unknown keys on decode, so a create ignores them.
        const { value } = readBody(mapping.fields, op.body);
        this.#validate(mapping, value);
        const organisation = op.parent.split('/')[0];
        for (const field of mapping.create?.organisationScoped ?? []) {
          if (getPath(value, field) !== organisation) throw invalidField(field, `must be the organisation's UIDP, ${organisation}`);
        }
        if (mapping.grants) requireGrantWithin(mapping.grants, value, op.parent);
        return backend.create(mapping, op.parent, value, ctx, op.judge)
          .then(async ({ row, once }) => ({ ...(await stage.one(mapping, row, ctx)), ...once }));
      }
      case 'update': {
        requireUidp('uid', op.uid);
        const { value, paths } = readUpdate(mapping.fields, op.body, op.mask);
        const patch = patchOf(mapping, value, paths, this.#backend.rows.rules?.(mapping));
        if (mapping.grants) requireGrantWithin(mapping.grants, value, parentOf(op.uid), paths);
        // Keyed by v1's collection: a repo and its readme are one v1 row, so their read-modify-writes take turns.
        // The answer is rendered before the lock goes, as the row was written.
        return this.#writes.run(`${mapping.service}/${mapping.v1.collection}\0${op.uid}`,
          () => backend.update(mapping, op.uid, patch, ctx, op.judge).then((row) => stage.one(mapping, row, ctx)));
      }
      case 'delete':
        requireUidp('uid', op.uid);
        return backend.delete(mapping, op.uid, ctx).then(() => ({}));
      case 'batchCreate': {
        const batch = parseBatch(mapping, '', op.body);
        requireUidp('parent', batch.parent);
        const values = batch.items.map((item, i) => {
          const { value } = readBody(mapping.fields, item);
          this.#validate(mapping, value, `requests[${i}].${batch.singular}.`);
          if (mapping.grants) requireGrantWithin(mapping.grants, value, batch.parent, undefined, `requests[${i}].${batch.singular}.`);
          return value;
        });
        return backend.batchCreate(mapping, batch.parent, values, batch.singular, ctx, op.judge)
          .then(async (rows) => ({ [mapping.name]: await stage.render(mapping, rows, ctx) }));
      }
      case 'lookup': {
        const params = Object.keys(mapping.methods?.lookup?.params ?? {});
        const values = Object.fromEntries(params.map((name) => {
          const value = singleParam(op.query, spellings(name));
          if (!value) throw invalidField(name, 'is required');
          return [name, value];
        }));
        return backend.lookup(mapping, values, ctx);
      }
      case 'custom': {
        const missing = missingRequired(op.method.input, op.request);
        if (missing.length > 0) throw invalidArgument(missing.map((field) => ({ field, description: 'is required' })));
        if (op.custom.list) return this.#customList(op, op.custom.list, ctx);
        const { pages } = this.#pages(op, undefined);
        return backend.custom(op.custom, op.request, ctx, pages).then((answer) => canonicalResponse(op.method.output, answer));
      }
    }
  }
}

/** A page as the envelope holds it: its rows rendered. */
type RenderedPage = Omit<Page, 'rows' | 'times'> & { items: Json[] };

/** The v2 List envelope; `nextPageToken` is left out on the last page, as clients rely on. */
function envelope(name: string, token: string | undefined, page: RenderedPage): Json {
  const body: Json = { [name]: page.items };
  if (token) body.nextPageToken = token;
  if (page.total !== undefined) body.totalCount = String(page.total);
  body.skipped = page.skipped;
  return body;
}

function requireUidp(field: string, value: string): void {
  if (!isUidp(value)) throw invalidField(field, value ? `"${value}" is not a valid UIDP` : 'is required');
}

function raceAbort<T>(work: Promise<T>, ctx: RequestContext): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(ctx));
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    // Settled by the work: the listener goes first (no `finally`, one promise fewer a request).
    work.then(
      (value) => {
        ctx.signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        ctx.signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
