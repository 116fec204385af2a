/**
 * The runner step that holds a new subscription's sink to the deployment's rule
 * (sink.ts), in both modes, after authorization (so a caller who may not create
 * one learns nothing from it) and before the backend writes.
 */
import { invalidField } from '../aip/errors.ts';
import type { Runner } from '../port/runner.ts';
import type { Json } from '../vocabulary/json.ts';
import { sinkRefusal } from './sink.ts';

/** The resource whose writes name sinks (the contract's Subscription). */
export const SUBSCRIPTION_TYPE = 'events.chainguard.dev/Subscription';

export function checkingSinks(inner: Runner, allowPrivate: boolean): Runner {
  return {
    execute(op, ctx) {
      if (op.kind === 'create' && op.mapping.resourceType === SUBSCRIPTION_TYPE) {
        const sink = (op.body as { sink?: Json } | null)?.sink;
        const refusal = typeof sink === 'string' ? sinkRefusal(sink, allowPrivate) : undefined;
        if (refusal) return Promise.reject(invalidField('sink', refusal));
      }
      return inner.execute(op, ctx);
    },
  };
}
