/**
 * The events deliverer's metrics (native mode), under `v2gw_events_`: deliveries
 * made, retried and given up, and those still pending (read from the store when
 * scraped, so every replica reports the same shared backlog). No labels: a sink
 * URL may carry a secret, and a subscription uid is unbounded.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export class EventMetrics {
  readonly delivered: Counter;
  readonly retried: Counter;
  readonly failed: Counter;

  constructor(registry: Registry, pending: () => Promise<number>) {
    const registers = [registry];
    this.delivered = new Counter({ name: 'v2gw_events_delivered_total', help: 'Event deliveries a sink accepted (2xx).', registers });
    this.retried = new Counter({ name: 'v2gw_events_retried_total', help: 'Event deliveries that failed in a way worth retrying (no answer, timeout, 5xx, 429) and were scheduled again.', registers });
    this.failed = new Counter({ name: 'v2gw_events_failed_total', help: 'Event deliveries given up: refused by the sink (4xx other than 429), a sink no longer allowed, or retried for longer than --events-retry-for-ms.', registers });
    new Gauge({
      name: 'v2gw_events_pending',
      help: 'Event deliveries recorded and not yet delivered or given up, across all replicas sharing the store.',
      registers,
      async collect() {
        this.set(await pending());
      },
    });
  }
}
