import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { formatTraceparent, parseTraceparent } from '../../src/observability/trace-context.ts';
import { describeTracing, tracingSettings } from '../../src/observability/tracing-settings.ts';
import { httpClientErrorType, httpServerErrorType, rpcServerErrorType } from '../../src/observability/tracing.ts';
import { ApiError } from '../../src/aip/errors.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('parseTraceparent', () => {
  it('reads a valid header and writes it back the same', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({ traceId: TRACE, spanId: SPAN, flags: 1 });
    expect(formatTraceparent(TRACE, SPAN, 1)).toBe(`00-${TRACE}-${SPAN}-01`);
  });

  it('refuses what the specification does not let a receiver continue', () => {
    for (const bad of [
      undefined, '', 'garbage', `ff-${TRACE}-${SPAN}-01`, `00-${'0'.repeat(32)}-${SPAN}-01`, `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE.toUpperCase()}-${SPAN}-01`, `00-${TRACE}-${SPAN}-01-extra`, `00-${TRACE}-${SPAN}-01, 00-${TRACE}-${SPAN}-01`,
    ]) expect(parseTraceparent(bad)).toBeUndefined();
    expect(parseTraceparent([`00-${TRACE}-${SPAN}-01`, `00-${TRACE}-${SPAN}-01`])).toBeUndefined();
  });

  it('accepts a later version with more fields, reading the fields it knows', () => {
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-00-future`)).toEqual({ traceId: TRACE, spanId: SPAN, flags: 0 });
  });
});

describe('tracingSettings', () => {
  it('is off unless asked', () => {
    expect(tracingSettings({})).toEqual({ enabled: false });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({ enabled: false });
    expect(tracingSettings({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({ enabled: false });
  });

  it('turns on with an OTLP endpoint alone, appending the traces path to the general endpoint only', () => {
    const general = tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' });
    expect(general).toMatchObject({ enabled: true, url: 'http://collector:4318/v1/traces', protocol: 'http/protobuf', sampler: 'parentbased_always_on', serviceName: 'v2gw' });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/custom' })).toMatchObject({ url: 'http://collector:4318/custom' });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({ url: 'http://localhost:4318/v1/traces' });
  });

  it('reads the protocol, sampler, service, resource, headers and batching', () => {
    const settings = tracingSettings({
      OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25', OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,deployment.environment=prod%20eu',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=s3cret', OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    expect(settings).toMatchObject({
      protocol: 'http/json', sampler: 'parentbased_traceidratio', ratio: 0.25, serviceName: 'from-attrs',
      resource: { 'deployment.environment': 'prod eu' }, headers: { 'x-api-key': 's3cret' }, batch: { scheduledDelayMillis: 200 },
    });
    expect(describeTracing(settings)).not.toContain('s3cret');
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'mine', OTEL_RESOURCE_ATTRIBUTES: 'service.name=other' })).toMatchObject({ serviceName: 'mine' });
  });

  it('refuses what it cannot honour, naming the variable', () => {
    const refused = (env: Record<string, string>) => {
      try {
        tracingSettings(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused({ OTEL_TRACES_EXPORTER: 'zipkin' })).toMatch(/^OTEL_TRACES_EXPORTER/);
    expect(refused({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toMatch(/^OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(refused({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'sometimes' })).toMatch(/^OTEL_TRACES_SAMPLER/);
    expect(refused({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toMatch(/^OTEL_TRACES_SAMPLER_ARG/);
    expect(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toMatch(/^OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(refused({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_BSP_SCHEDULE_DELAY: '0x50' })).toMatch(/^OTEL_BSP_SCHEDULE_DELAY/);
  });

  it('masks a password in the endpoint it describes', () => {
    expect(describeTracing(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://user:pw@collector' }))).toBe(
      'OTLP http/protobuf to https://***:***@collector/v1/traces, sampler parentbased_always_on, service.name v2gw',
    );
  });
});

describe('span status rules', () => {
  it('fails a server span on a server fault only, a client span on any 4xx, 5xx or missing answer', () => {
    expect(httpServerErrorType(404)).toBeUndefined();
    expect(httpServerErrorType(503)).toBe('503');
    expect(httpClientErrorType(404, undefined)).toBe('404');
    expect(httpClientErrorType(200, undefined)).toBeUndefined();
    expect(httpClientErrorType(0, Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:8081'), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED');
    expect(httpClientErrorType(0, new ApiError(4, 'the request did not complete'))).toBe('DEADLINE_EXCEEDED');
    expect(rpcServerErrorType(5)).toBeUndefined();
    expect(rpcServerErrorType(3)).toBeUndefined();
    expect(rpcServerErrorType(14)).toBe('UNAVAILABLE');
    expect(rpcServerErrorType(13)).toBe('INTERNAL');
  });
});
