/**
 * The OpenTelemetry SDK behind tracing.ts, loaded only when tracing is on:
 * a tracer provider with the sampler the settings name, a batch processor,
 * and an OTLP/HTTP exporter (protobuf or JSON). Nothing is registered
 * globally (no global provider, propagator or context manager): spans are
 * parented explicitly, so the gateway traces only what it means to and no
 * other code in the process is touched. Failed exports are logged
 * (export-failures.ts), since the SDK drops them silently.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, TraceState } from '@opentelemetry/core';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type Sampler, type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { VERSION } from '../version.ts';
import { ExportFailureLog, exportSecrets, type ExportLog } from './export-failures.ts';
import { formatTraceparent, propagationHeaders } from './trace-context.ts';
import type { SpanAttributes, SpanFactory, TraceSpan } from './span.ts';
import type { ExportSettings, SamplerName } from './tracing-settings.ts';

export async function startOtel(settings: ExportSettings, log: ExportLog): Promise<SpanFactory> {
  const exporter = reported(await otlpExporter(settings), new ExportFailureLog(log, { secrets: exportSecrets(settings.url, settings.headers) }));
  const provider = new TracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ ...settings.resource, [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: VERSION })),
    sampler: sampler(settings.sampler, settings.ratio),
    spanProcessors: [new BatchSpanProcessor({ exporter, ...settings.batch })],
  });
  const tracer = provider.getTracer('v2gw', VERSION);
  return {
    server(name, parent, attributes) {
      const context = parent
        ? trace.setSpanContext(ROOT_CONTEXT, {
          traceId: parent.traceId,
          spanId: parent.spanId,
          traceFlags: parent.flags & 1,
          isRemote: true,
          ...(parent.tracestate ? { traceState: new TraceState(parent.tracestate) } : {}),
        })
        : ROOT_CONTEXT;
      return new OtelSpan(tracer, tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: defined(attributes) }, context));
    },
    shutdown: () => provider.shutdown(),
  };
}

async function otlpExporter(settings: ExportSettings): Promise<SpanExporter> {
  const { OTLPTraceExporter } = settings.protocol === 'http/json'
    ? await import('@opentelemetry/exporter-trace-otlp-http')
    : await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({
    url: settings.url,
    headers: settings.headers,
    ...(settings.timeoutMillis !== undefined ? { timeoutMillis: settings.timeoutMillis } : {}),
    ...(settings.compression ? { compression: settings.compression as never } : {}),
  });
}

/** The exporter, telling `failures` how each export went. */
function reported(exporter: SpanExporter, failures: ExportFailureLog): SpanExporter {
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.code === ExportResultCode.SUCCESS) failures.succeeded();
        else failures.failed(result.error);
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush ? { forceFlush: () => exporter.forceFlush!() } : {}),
  };
}

function sampler(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

const KINDS = { client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;

/** OpenTelemetry drops undefined attribute values anyway; leaving them out saves it the warning. */
function defined(attributes: SpanAttributes | undefined): Attributes {
  const kept: Attributes = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept;
}

function markFailed(span: Span, errorType: string | undefined): void {
  if (errorType === undefined) return;
  span.setAttribute('error.type', errorType);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

class OtelSpan implements TraceSpan {
  readonly #tracer: Tracer;
  readonly #span: Span;
  readonly #context: Context;
  #propagation: Readonly<Record<string, string>> | undefined;
  #ended = false;

  constructor(tracer: Tracer, span: Span) {
    this.#tracer = tracer;
    this.#span = span;
    this.#context = trace.setSpan(ROOT_CONTEXT, span);
  }

  get recording(): boolean {
    return this.#span.isRecording();
  }

  get propagation(): Readonly<Record<string, string>> {
    if (!this.#propagation) {
      const { traceId, spanId, traceFlags, traceState } = this.#span.spanContext();
      this.#propagation = propagationHeaders(formatTraceparent(traceId, spanId, traceFlags), traceState?.serialize() || undefined);
    }
    return this.#propagation;
  }

  child(name: string, kind: 'client' | 'internal', attributes?: SpanAttributes): TraceSpan {
    return new OtelSpan(this.#tracer, this.#tracer.startSpan(name, { kind: KINDS[kind], attributes: defined(attributes) }, this.#context));
  }

  ranChild(name: string, kind: 'client' | 'internal', attributes: SpanAttributes, startedAt: number, endedAt: number, errorType?: string): void {
    // Numbers below the epoch's are read by OpenTelemetry as performance.now() readings.
    const span = this.#tracer.startSpan(name, { kind: KINDS[kind], attributes: defined(attributes), startTime: startedAt }, this.#context);
    markFailed(span, errorType);
    span.end(endedAt);
  }

  set(attributes: SpanAttributes): void {
    this.#span.setAttributes(defined(attributes));
  }

  rename(name: string): void {
    this.#span.updateName(name);
  }

  end(errorType?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    markFailed(this.#span, errorType);
    this.#span.end();
  }
}
