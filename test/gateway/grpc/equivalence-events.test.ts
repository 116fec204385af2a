/**
 * Equivalence (test/support/equivalence.ts) for event subscriptions: v1's in
 * translate mode, the store's in native mode. The same operation over gRPC and
 * over REST answers the same message.
 */
import { beforeAll } from 'vitest';
import { describeEquivalence, itReadsAlike, itWritesAlike, type Ids } from '../../support/equivalence.ts';

const SUBSCRIPTIONS = '/events/v2beta1/subscriptions';

describeEquivalence('events', (eq) => {
  const ids: Ids = {};

  beforeAll(async () => {
    ids.org = await eq.made('/iam/v2beta1/groups', { name: 'equivalence' });
    ids.subscription = await eq.made(`${SUBSCRIPTIONS}/${ids.org}`, { sink: 'https://hooks.example.com/eq' });
  });

  itReadsAlike(eq, ids, [
    ['SubscriptionsService', 'GetSubscription', 'ListSubscriptions', SUBSCRIPTIONS, 'subscription'],
  ]);

  itWritesAlike(eq, ids, [
    ['SubscriptionsService', 'Subscription', SUBSCRIPTIONS, 'org', () => ({ sink: 'https://hooks.example.com/written' })],
  ]);
});
