/**
 * Native mode's events, wired in one place: the emitter around the runner (writes
 * record their deliveries), the issuer's discovery document and JWKS routes, and
 * the deliverer, started once the gateway listens (its default issuer is its own
 * base URL, known only then) and stopped when it closes.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { bindContract } from '../contract/bindings.ts';
import { apiServices } from '../contract/registry.ts';
import { EventMetrics } from '../observability/event-metrics.ts';
import type { Runner } from '../port/runner.ts';
import type { Store } from '../store/types.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import { Deliverer } from './deliverer.ts';
import { Emitter } from './emitter.ts';
import { SUBSCRIPTION_TYPE } from './sink-check.ts';
import { DeliverySigner, DISCOVERY_PATH, JWKS_PATH } from './signer.ts';

export interface EventSettings {
  eventsIssuerUrl?: string | undefined;
  eventsAllowPrivateSinks: boolean;
  eventsRetryForMs: number;
  eventsPollMs: number;
  /** Set when the gateway serves TLS: its own URL is then https. */
  tlsCert?: string | undefined;
}

export interface EventsWiring {
  store: Store;
  mappings: readonly ResourceMapping[];
  metrics: Registry;
  log: FastifyBaseLogger;
  /** A CA (PEM) sinks may be signed by, beside the system's (tests). */
  sinkCa?: string | undefined;
  /** First retry back-off in ms (tests shorten it). */
  backoffMs?: number | undefined;
}

export interface Events {
  wrap(runner: Runner): Runner;
  register(app: FastifyInstance): void;
}

export async function startEvents(settings: EventSettings, wiring: EventsWiring): Promise<Events> {
  const subscriptions = wiring.mappings.find((m) => m.resourceType === SUBSCRIPTION_TYPE);
  if (!subscriptions) throw new Error(`events: no mapping serves ${SUBSCRIPTION_TYPE}`);
  const signer = await DeliverySigner.load(wiring.store.events);
  let baseUrl = '';
  const issuer = () => settings.eventsIssuerUrl ?? baseUrl;
  const deliverer = new Deliverer({
    outbox: wiring.store.events,
    signer,
    issuer,
    allowPrivateSinks: settings.eventsAllowPrivateSinks,
    retryForMs: settings.eventsRetryForMs,
    pollMs: settings.eventsPollMs,
    metrics: new EventMetrics(wiring.metrics, () => wiring.store.events.pending()),
    warn: (fields, message) => wiring.log.warn(fields, message),
    ...(wiring.sinkCa ? { ca: wiring.sinkCa } : {}),
    ...(wiring.backoffMs ? { backoffMs: wiring.backoffMs } : {}),
  });
  const emitter = new Emitter({
    store: wiring.store,
    bindings: bindContract(apiServices(), wiring.mappings),
    subscriptionKind: subscriptions.name,
    source: issuer,
    recorded: () => deliverer.wake(),
  });
  return {
    wrap: (runner) => emitter.wrap(runner),
    register(app) {
      app.get(DISCOVERY_PATH, async () => signer.discovery(issuer()));
      app.get(JWKS_PATH, async () => signer.jwks());
      app.addHook('onListen', async () => {
        baseUrl = ownBaseUrl(app, settings.tlsCert !== undefined);
        // A receiver verifies a delivery by fetching the issuer's keys: one on this host's loopback only this host can reach.
        if (!settings.eventsIssuerUrl && LOOPBACK_ORIGIN.test(baseUrl)) {
          wiring.log.warn({ issuer: baseUrl }, 'events: --events-issuer-url is unset, so deliveries name this loopback address as their issuer; receivers on other hosts cannot fetch its keys to verify them');
        }
        deliverer.start();
      });
      app.addHook('preClose', async () => {
        await deliverer.close();
      });
    },
  };
}

const LOOPBACK_ORIGIN = /^https?:\/\/(127\.|\[::1\]|localhost)/;

/** The URL the gateway answers on: its scheme and bound address (an unspecified bind address as loopback). */
function ownBaseUrl(app: FastifyInstance, tls: boolean): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') return '';
  const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  return `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}
