/**
 * Subscription (events v2beta1): a webhook, an https sink under a group that
 * receives the CloudEvents of writes at that group and below. v1 keeps them at
 * `/events/v1/subscriptions` with `id` for `uid`, a create body of the
 * subscription alone, and no Get (a List by `id`) nor update.
 * What a sink may be (https, and on a private address only where the
 * deployment allows it: `--events-allow-private-sinks`) is the events
 * module's rule (src/events/sink.ts), checked in both modes, not one here.
 */
import { z } from 'zod';
import { defineResource } from '../src/contract/define.ts';
import { UID, UIDP_FILTERS, text } from './common.ts';

export default defineResource({
  name: 'subscriptions',
  resourceType: 'events.chainguard.dev/Subscription',
  service: 'events',
  operations: ['list', 'get', 'create', 'delete'],
  v1: { collection: 'subscriptions', idParam: 'id' },
  fields: { uid: UID },
  filters: UIDP_FILTERS,
  orderBy: { fields: ['uid', 'sink'], default: 'uid asc' },
  create: { parent: 'required', parentKind: 'groups' },
  validate: z.object({
    sink: text().max(2048, 'must be at most 2048 characters').optional(),
  }),
});

