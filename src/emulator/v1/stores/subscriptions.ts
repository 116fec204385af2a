/**
 * Event subscriptions (`events/v1/subscriptions.platform.proto`): a sink URL
 * under a group. Create, List (by `id` or the UIDP filter) and Delete; no Get
 * and no update in v1.
 */
import { newChildUid } from '../uidp.ts';
import { invalidArgument } from '../errors.ts';
import { select, type ListFilter } from '../query.ts';
import { Rows, store } from '../records.ts';

export interface V1Subscription {
  id: string;
  sink: string;
}

export class SubscriptionStore extends Rows<V1Subscription> {
  /** Decision: the sink must be an absolute https URL (v2 documents "must use the https scheme"; v1 states no rule, and a platform that delivers over https only could not deliver to another). */
  create(group: string, fields: { sink?: string }): V1Subscription {
    const parent = this.ctx.parentGroup(group, 'parent_id');
    const sink = fields.sink ?? '';
    if (!URL.canParse(sink) || new URL(sink).protocol !== 'https:') throw invalidArgument('subscription.sink: must be an https URL');
    return store(this.rows, { id: newChildUid(parent), sink });
  }

  list(filter: ListFilter = {}): V1Subscription[] {
    return select(this.rows, filter);
  }

  delete(id: string): void {
    this.remove(id, 'subscription');
  }
}
