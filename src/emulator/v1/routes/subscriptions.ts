/** `/events/v1/subscriptions`: create under `{parent_id=**}` with the subscription as body, list, delete; no PUT. */
import { SUBSCRIPTION, SUBSCRIPTION_FILTER } from '../messages.ts';
import type { Route } from '../router.ts';
import type { SubscriptionStore, V1Subscription } from '../stores/subscriptions.ts';
import { as, createRoute, deleteRoute, listRoute, renderer } from './collection.ts';
import type { ListFilter } from '../query.ts';

const PATH = '/events/v1/subscriptions';
const render = renderer<V1Subscription>(SUBSCRIPTION);

export function subscriptionRoutes(subscriptions: SubscriptionStore): Route[] {
  return [
    createRoute(PATH, SUBSCRIPTION, (group, body) => render(subscriptions.create(group, as<{ sink?: string }>(body)))),
    listRoute(PATH, SUBSCRIPTION_FILTER, (filter) => ({ items: subscriptions.list(as<ListFilter>(filter)).map(render) })),
    deleteRoute(PATH, (id) => subscriptions.delete(id)),
  ];
}
