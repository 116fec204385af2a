/**
 * Native mode's events, recorded as writes happen: the runner step that, for a
 * write whose method the contract annotates with a CUSTOMER event, runs the
 * write and records its event for every subscription at the event's group or an
 * ancestor in one store transaction (the backend's own transaction joins it as
 * a savepoint). So an acknowledged write has its deliveries recorded, and a
 * failed one has none. INTERNAL events stay inside: nothing is recorded.
 * Declared once for every resource: which writes emit what is the contract's.
 */
import { randomUUID } from 'node:crypto';
import type { DescMethod } from '@bufbuild/protobuf';
import type { Binding } from '../contract/bindings.ts';
import type { Operation } from '../port/operation.ts';
import type { RequestContext } from '../request/context.ts';
import type { Runner } from '../port/runner.ts';
import type { Store } from '../store/types.ts';
import { selfAndAncestors } from '../uidp.ts';
import type { Json } from '../vocabulary/json.ts';
import { buildEvent } from './cloudevent.ts';
import { methodEvent, type MethodEvent } from './declarations.ts';

export interface EmitterOptions {
  store: Store;
  bindings: readonly Binding[];
  /** The mapping name the store keeps subscriptions under. */
  subscriptionKind: string;
  /** The events' `source`. */
  source: () => string;
  now?: () => number;
  /** Told after a write recorded deliveries (the deliverer wakes). */
  recorded?: () => void;
}

interface Emitting {
  readonly method: DescMethod;
  readonly declared: MethodEvent;
}

/** The most subscriptions one event fans out to. */
const MAX_SUBSCRIPTIONS = 1000;

function key(mappingName: string, kind: string): string {
  return `${mappingName}\0${kind}`;
}

export class Emitter {
  readonly #options: EmitterOptions;
  readonly #byOperation = new Map<string, Emitting>();
  readonly #byMethod = new Map<DescMethod, Emitting>();
  readonly #now: () => number;

  constructor(options: EmitterOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    for (const binding of options.bindings) {
      const declared = methodEvent(binding.method);
      if (declared?.audience !== 'CUSTOMER') continue;
      const emitting = { method: binding.method, declared };
      if (binding.kind === 'custom') this.#byMethod.set(binding.method, emitting);
      else this.#byOperation.set(key(binding.mapping.name, binding.kind), emitting);
    }
  }

  /** The runner with events recorded for its CUSTOMER-audience writes. */
  wrap(inner: Runner): Runner {
    return {
      execute: (op, ctx) => {
        const emitting = op.kind === 'custom' ? this.#byMethod.get(op.method) : this.#byOperation.get(key(op.mapping.name, op.kind));
        if (!emitting) return inner.execute(op, ctx);
        return this.#options.store.transaction(async () => {
          const answer = await inner.execute(op, ctx);
          const recorded = await this.#record(emitting, op, answer, ctx);
          return { answer, recorded };
        }).then(({ answer, recorded }) => {
          if (recorded) this.#options.recorded?.();
          return answer;
        });
      },
    };
  }

  async #record({ method, declared }: Emitting, op: Operation, answer: Json, ctx: RequestContext): Promise<boolean> {
    // The body is the answer, or, where the answer is empty (a delete), the request.
    const empty = method.output.typeName === 'google.protobuf.Empty';
    const body = !empty ? answer : op.kind === 'custom' ? op.request : op.kind === 'delete' ? { uid: op.uid } : answer;
    const nowMs = this.#now();
    const event = buildEvent({
      declared,
      message: empty ? method.input : method.output,
      body,
      actor: ctx.caller?.subject ?? '',
      id: randomUUID(),
      source: this.#options.source(),
      time: new Date(nowMs).toISOString(),
    });
    if (!event.group) return false;
    const { rows } = await this.#options.store.resources.list({
      kind: this.#options.subscriptionKind,
      filters: [{ field: 'parent', op: 'in', value: selfAndAncestors(event.group) }],
      order: [{ field: 'uid', desc: false }],
      skip: 0,
      limit: MAX_SUBSCRIPTIONS,
    });
    if (rows.length === 0) return false;
    const attributes = JSON.stringify(event.attributes);
    await this.#options.store.events.append(rows.map((row) => ({
      eventId: event.attributes.id,
      subscription: row.uid,
      sink: String(row.body.sink ?? ''),
      group: row.parent,
      attributes,
      data: event.data,
    })), nowMs);
    return true;
  }
}
