/**
 * What a span is to the gateway (TraceSpan), and what the OpenTelemetry SDK
 * behind it must provide (SpanFactory). Apart from tracing.ts, which loads
 * that SDK (otel.ts) only when tracing is on, so the SDK's side reads these
 * without importing the module that loads it.
 */
import type { TraceParent } from './trace-context.ts';

export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** One span of a request's trace; or, with tracing off, the caller's context handed on unchanged. */
export interface TraceSpan {
  /** False when nothing is recorded (tracing off, or this trace not sampled): steps then make no span of their own. */
  readonly recording: boolean;
  /** `traceparent` (and `tracestate`) naming this span as the parent of the next hop. */
  readonly propagation: Readonly<Record<string, string>>;
  /** A child: `client` for a call out of the gateway (its propagation goes with the call), `internal` for a step. */
  child(name: string, kind: 'client' | 'internal', attributes?: SpanAttributes): TraceSpan;
  /** A child that has already run (a store query the driver timed), between two performance.now() readings. */
  ranChild(name: string, kind: 'client' | 'internal', attributes: SpanAttributes, startedAt: number, endedAt: number, errorType?: string): void;
  set(attributes: SpanAttributes): void;
  /** Names the span once the name is known (a REST request's route template is known only once routed). */
  rename(name: string): void;
  /** Ends the span (once; later calls do nothing). `errorType` marks it failed, as `error.type`. */
  end(errorType?: string): void;
}

/** What otel.ts provides: server spans, each continuing the caller's context when there is one. */
export interface SpanFactory {
  server(name: string, parent: (TraceParent & { tracestate: string | undefined }) | undefined, attributes: SpanAttributes): TraceSpan;
  /** Exports what is still buffered, then stops. */
  shutdown(): Promise<void>;
}
