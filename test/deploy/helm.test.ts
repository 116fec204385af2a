/**
 * The Helm chart in deploy/helm/v2gw, rendered by the real helm (test/support/helm.ts): its values
 * schema refuses what a typo or a wrong type would otherwise deploy, and every value set an operator
 * would use renders objects valid for their kinds that set only settings the gateway reads, in a form
 * it accepts, with the same pod the hand-written examples in deploy/kubernetes/ describe.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/config.ts';
import { freePort, startCli } from '../support/cli-process.ts';
import { HELM_VERSION, helm, helmBinary } from '../support/helm.ts';
import { KNOWN_ENV, byKind, envOf, expectGatewayPod, expectValidObject, gatewayOf, literalConfig, v2gwNamesIn, type Doc } from '../support/kubernetes.ts';
import { PG_URL, withPg } from '../support/modes.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const CHART = `${ROOT}deploy/helm/v2gw`;
const read = (path: string) => readFileSync(`${CHART}/${path}`, 'utf8');
const SCHEMA = JSON.parse(read('values.schema.json'));
const DEFAULTS: Doc = parse(read('values.yaml'));
const exampleOf = (file: string): Doc[] => parseAllDocuments(readFileSync(`${ROOT}deploy/kubernetes/${file}`, 'utf8')).map((d) => d.toJS());

const V1 = 'https://v1.example.internal';

/** The settings the chart derives from values of its own; every other one is a key of `config`. */
const IDENTITY_UID = `${'a'.repeat(40)}/${'b'.repeat(16)}`;

const CHART_MANAGED = ['mode', 'v1Url', 'host', 'port', 'adminPort', 'adminHost', 'store', 'dataDir', 'pageTokenKey', 'pageTokenKeyFile', 'tlsCert', 'tlsKey', 'shedMaxRssBytes',
  'authIssuer', 'authAudience', 'authDisabled', 'identity', 'identityTokenFile', 'issuerUrl', 'identityAllowRemote'];

/** The workload's own container, which the sidecar layout runs beside the gateway. */
const WORKLOAD = { name: 'workload', image: 'registry.example.internal/workload:latest', env: [{ name: 'PLATFORM_API_URL', value: 'http://127.0.0.1:8080' }] };

/** The sidecar layout: an identity assumed and not opened beyond the pod. */
const isSidecarLayout = (values: Doc) => (values.mode ?? 'translate') === 'translate' && !!values.identity?.uid && !values.identity?.allowRemote;

/** Every `config` key, set to a value other than the gateway's default, large numbers included (they reach templates as floats). */
const EVERY_CONFIG = {
  authGrantsCacheMs: 500,
  authJwksCooldownMs: 60000,
  v1TimeoutMs: 5000,
  requestTimeoutMs: 20000,
  bodyLimit: 2097152,
  v1MaxBodyBytes: 67108864,
  headersTimeoutMs: 5000,
  requestReceiveTimeoutMs: 0,
  maxFanOut: 32,
  shedEventLoopDelayMs: 500,
  logLevel: 'warn',
  hydrationCacheMs: 60000,
  walkCacheMs: 0,
  walkCacheBytes: 33554432,
  listScanCacheBytes: 4194304,
  docs: true,
  debugHeaders: true,
  compareWith: 'http://v2-reference.internal:8080',
  compareProtocol: 'grpc',
  compareSample: 0.25,
  compareUnsafe: true,
  compareNoise: true,
  compareTargetRate: 0.001,
  compareQueue: 500,
  compareConcurrency: 4,
  compareTimeoutMs: 2000,
  compareRetryMs: 100,
  compareSamples: 5,
  compareSamplesTokenFile: '/var/run/secrets/v2gw/compare-samples-token',
  compareExpect: '/etc/v2gw/expected.json',
  compareRun: 'cut-over-1',
  capture: '/var/lib/v2gw/capture.jsonl',
  eventsAllowPrivateSinks: true,
  eventsIssuerUrl: 'https://v2gw.example.internal',
  eventsRetryForMs: 3600000,
  eventsPollMs: 500,
};

/** Value sets an operator would write, over the chart's defaults. */
const SETS: Record<string, Doc> = {
  // The defaults and the one value they lack.
  translate: { v1: { url: V1 } },
  // A workload identity assumed for requests without a token: a projected token for the issuer, and the
  // sidecar layout (the gateway a native sidecar of the workload, its API on loopback).
  'assumed-identity': { v1: { url: V1 }, identity: { uid: IDENTITY_UID, issuerUrl: 'https://issuer.enforce.dev' }, extraContainers: [WORKLOAD] },
  // The same identity opened beyond the pod on purpose (identity.allowRemote).
  'assumed-identity-remote': { v1: { url: V1 }, identity: { uid: IDENTITY_UID, issuerUrl: 'https://issuer.enforce.dev', allowRemote: true } },
  // deploy/kubernetes/native-postgres.yaml's settings.
  'native-postgres': {
    mode: 'native',
    auth: { issuers: ['https://issuer.enforce.dev'], audience: 'https://console-api.enforce.dev' },
    replicaCount: 3,
    store: { type: 'postgres', postgres: { secretName: 'v2gw-native' } },
    pageTokenKey: { secretName: 'v2gw-native' },
  },
  // deploy/kubernetes/sidecar.yaml's sizes, as one standalone pod.
  'sidecar-sized': {
    v1: { url: V1 },
    pageTokenKey: { secretName: 'v2gw-page-token', secretKey: 'key' },
    resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
    probes: { startup: { periodSeconds: 1, failureThreshold: 30 } },
  },
  // Every value the chart has, away from its default.
  everything: {
    fullnameOverride: 'gateway',
    v1: { url: V1 },
    replicaCount: 2,
    image: { repository: 'registry.example.internal/v2gw', tag: '0.1.0-rc.1', pullPolicy: 'Always' },
    imagePullSecrets: [{ name: 'regcred' }],
    store: { type: 'postgres', postgres: { secretName: 'v2gw-store', secretKey: 'url' } },
    pageTokenKey: { secretName: 'v2gw-page-token', secretKey: 'key' },
    tls: { secretName: 'v2gw-tls' },
    config: EVERY_CONFIG,
    extraEnv: [
      { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: 'http://otel-collector.observability:4318' },
      { name: 'OTEL_RESOURCE_ATTRIBUTES', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ],
    ports: { api: 8443, admin: 9464 },
    service: { type: 'LoadBalancer', port: 443, annotations: { 'service.beta.kubernetes.io/aws-load-balancer-internal': 'true' } },
    serviceAccount: { create: true, name: 'v2gw-runner', annotations: { 'iam.gke.io/gcp-service-account': 'v2gw@project.iam.gserviceaccount.com' } },
    resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '2', memory: '2Gi' } },
    shedding: { memoryPercent: 85 },
    probes: { startup: { periodSeconds: 2, failureThreshold: 30 }, readiness: { periodSeconds: 3, failureThreshold: 3 }, liveness: { periodSeconds: 20, failureThreshold: 5 } },
    preStopSleepSeconds: 10,
    terminationGracePeriodSeconds: 60,
    podDisruptionBudget: { maxUnavailable: 1 },
    metrics: { podAnnotations: false, serviceMonitor: { enabled: true, interval: '15s', labels: { release: 'prometheus' } } },
    spreadAcrossNodes: false,
    podAnnotations: { 'example.com/owner': 'identity' },
    podLabels: { team: 'identity' },
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gateways', effect: 'NoSchedule' }],
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }] } } },
    priorityClassName: 'platform-critical',
  },
};

/** Values as Helm merges them over values.yaml: maps merge, null deletes a default, anything else replaces it. */
function merge(base: Doc, over: Doc): Doc {
  const out: Doc = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const isMap = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
    if (value === null) delete out[key];
    else out[key] = isMap(value) && isMap(base[key]) ? merge(base[key], value) : value;
  }
  return out;
}

let work: string;
/** `helm <command> <release> <chart> -f <values>`, the values written as a file as an operator would (JSON is YAML). */
function helmWith(args: string[], values: Doc) {
  const file = join(work, `values-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(values));
  return helm([...args, '-f', file]);
}
function render(values: Doc): { docs: Doc[]; text: string } {
  const run = helmWith(['template', 'v2gw', CHART, '--namespace', 'gateways'], values);
  if (run.status !== 0) throw new Error(`helm template failed: ${run.stderr}`);
  return { docs: parseAllDocuments(run.stdout).map((d) => d.toJS()).filter((d) => d), text: run.stdout };
}

// Strict (unknown keywords and formats are errors), but the cross-value rules in allOf restate no
// types: their values are typed where `properties` declares them.
const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
const validate = ajv.compile(SCHEMA);
/** Where the schema finds fault with values merged over the defaults ('' when it finds none). */
function schemaFaults(values: Doc): string[] {
  if (validate(merge(DEFAULTS, values))) return [];
  return (validate.errors ?? []).filter((e) => e.keyword !== 'if' && e.keyword !== 'allOf').map((e) => e.instancePath + (e.keyword === 'additionalProperties' ? `/${e.params.additionalProperty}` : ''));
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'v2gw-chart-'));
  helmBinary();
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('deploy/helm/v2gw: the chart', () => {
  it(`is rendered by the real helm ${HELM_VERSION}`, () => {
    expect(helm(['version', '--short']).stdout).toContain(HELM_VERSION);
  });

  it('is a Helm v2 chart whose appVersion is the gateway\'s version', () => {
    const chart = parse(read('Chart.yaml'));
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'v2gw', type: 'application', appVersion: pkg.version });
  });

  it.each(Object.keys(SETS))('%s: passes helm lint --strict', (set) => {
    const run = helmWith(['lint', '--strict', CHART], SETS[set]!);
    expect(run.stdout + run.stderr).toContain('0 chart(s) failed');
    expect(run.status).toBe(0);
  });
});

describe('deploy/helm/v2gw: values.schema.json', () => {
  it('is JSON Schema draft-07, as Helm reads it, and compiles in ajv\'s strict mode', () => {
    expect(SCHEMA.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(typeof validate).toBe('function');
  });

  it('types and describes every value, and closes every map of known keys', () => {
    const untyped: string[] = [];
    const walk = (node: Doc, path: string) => {
      if (!node.description) untyped.push(`${path}: no description`);
      if (!node.type && !node.$ref && !node.const) untyped.push(`${path}: no type`);
      if (node.properties && node.additionalProperties !== false) untyped.push(`${path}: open to unknown keys`);
      for (const [key, child] of Object.entries<Doc>(node.properties ?? {})) walk(child, `${path}/${key}`);
      if (node.items) walk(node.items, `${path}/items`);
    };
    walk(SCHEMA, '');
    for (const [name, definition] of Object.entries<Doc>(SCHEMA.definitions)) walk(definition, `#/definitions/${name}`);
    expect(untyped).toEqual([]);
  });

  it('accepts values.yaml with the one value it leaves to the operator, and refuses it without that value', () => {
    expect(schemaFaults({ v1: { url: V1 } })).toEqual([]);
    // Without a v1 URL the gateway would quietly serve its demo emulator: the install fails instead.
    expect(schemaFaults({})).toEqual(['/v1/url']);
    const run = helm(['template', 'v2gw', CHART]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("at '/v1/url'");
  });

  it.each(Object.keys(SETS))('accepts the %s value set', (set) => {
    expect(schemaFaults(SETS[set]!)).toEqual([]);
  });

  const BAD: [string, Doc, string][] = [
    ['a misspelt top-level key', { v1: { url: V1 }, replicas: 3 }, '/replicas'],
    ['a misspelt nested key', { v1: { url: V1 }, service: { prot: 443 } }, '/service/prot'],
    ['a misspelt gateway setting', { v1: { url: V1 }, config: { logLevl: 'debug' } }, '/config/logLevl'],
    ['a number as a string', { v1: { url: V1 }, replicaCount: '3' }, '/replicaCount'],
    ['a duration where milliseconds go', { v1: { url: V1 }, config: { requestTimeoutMs: '30s' } }, '/config/requestTimeoutMs'],
    ['a mode the gateway has not', { v1: { url: V1 }, mode: 'proxy' }, '/mode'],
    ['no replicas', { v1: { url: V1 }, replicaCount: 0 }, '/replicaCount'],
    ['a v1 URL that is not http(s)', { v1: { url: 'v1.example.internal' } }, '/v1/url'],
    ['a memory limit the shedding threshold cannot be computed from', { v1: { url: V1 }, resources: { limits: { memory: '536870912' } } }, '/resources/limits/memory'],
    ['no memory limit', { v1: { url: V1 }, resources: { limits: { memory: null } } }, '/resources/limits'],
    ['the page-token key itself, inline', { v1: { url: V1 }, pageTokenKey: { value: 'a-key-that-would-sit-in-release-history' } }, '/pageTokenKey/value'],
    ['the store URL itself, inline', { mode: 'native', store: { type: 'postgres', postgres: { url: 'postgres://v2gw:secret@db/v2gw' } } }, '/store/postgres/url'],
    ['a V2GW_ variable around the typed values', { v1: { url: V1 }, extraEnv: [{ name: 'V2GW_LOG_LEVEL', value: 'debug' }] }, '/extraEnv/0/name'],
    ['native mode on a pod-local store', { mode: 'native' }, '/store/type'],
    ['replicas on pod-local stores', { v1: { url: V1 }, replicaCount: 3, pageTokenKey: { secretName: 'k' } }, '/store/type'],
    ['replicas without one page-token key', { v1: { url: V1 }, replicaCount: 3, store: { type: 'postgres', postgres: { secretName: 'pg' } } }, '/pageTokenKey/secretName'],
    ['a PostgreSQL store without its Secret', { v1: { url: V1 }, store: { type: 'postgres' } }, '/store/postgres/secretName'],
    ['an issuer whose keys would travel in clear', { mode: 'native', auth: { issuers: ['http://issuer.example'], audience: 'a' }, store: { type: 'postgres', postgres: { secretName: 'pg' } } }, '/auth/issuers/0'],
    ['an STS the platform token would reach in clear', { v1: { url: V1 }, identity: { uid: IDENTITY_UID, issuerUrl: 'http://issuer.example' }, extraContainers: [WORKLOAD] }, '/identity/issuerUrl'],
    ['the sidecar layout with no workload to serve', { v1: { url: V1 }, identity: { uid: IDENTITY_UID, issuerUrl: 'https://issuer.enforce.dev' } }, '/extraContainers'],
  ];

  it.each(BAD)('refuses %s, in ajv and in helm', (_, values, where) => {
    expect(schemaFaults(values)).toContain(where);
    const run = helmWith(['template', 'v2gw', CHART], values);
    expect(run.status).not.toBe(0);
    const [parent, key] = [where.slice(0, where.lastIndexOf('/')), where.slice(where.lastIndexOf('/') + 1)];
    // Helm names the value, or the map an unknown key was found in.
    expect(run.stderr).toMatch(new RegExp(`at '(${where}|${parent}': additional properties '${key})'`));
  });

  it('names every gateway setting: each is a `config` key or derived by the chart, so a new one cannot be forgotten', () => {
    const configKeys = Object.keys(SCHEMA.properties.config.properties);
    expect([...configKeys, ...CHART_MANAGED].sort()).toEqual(Object.keys(OPTIONS).sort());
    expect(Object.keys(EVERY_CONFIG).sort()).toEqual(configKeys.sort());
  });
});

describe('deploy/helm/v2gw: rendered', () => {
  const rendered: Record<string, { docs: Doc[]; text: string }> = {};
  beforeAll(() => {
    for (const [set, values] of Object.entries(SETS)) rendered[set] = render(values);
  }, 60_000);
  const sets = Object.keys(SETS);
  const deploymentOf = (set: string) => byKind(rendered[set]!.docs, 'Deployment')[0]!;

  it.each(sets)('%s: every object is valid for its kind, and no Secret is among them', (set) => {
    const { docs } = rendered[set]!;
    // The sidecar layout's API is on loopback: no Service could reach it.
    expect(docs.map((d) => d.kind)).toEqual(expect.arrayContaining(isSidecarLayout(SETS[set]!) ? ['Deployment', 'ServiceAccount'] : ['Deployment', 'Service', 'ServiceAccount']));
    expect(byKind(docs, 'Service').some((service) => service.spec.ports.some((port: Doc) => port.targetPort === 'api'))).toBe(!isSidecarLayout(SETS[set]!));
    for (const doc of docs) expectValidObject(doc);
    // The chart takes Secrets by name; their values never pass through values or release history.
    expect(byKind(docs, 'Secret')).toEqual([]);
    expect(rendered[set]!.text).not.toMatch(/postgres(ql)?:\/\//);
  });

  it.each(sets)('%s: every V2GW_ name in the output is a setting the gateway reads, in a form it accepts', (set) => {
    const names = v2gwNamesIn(rendered[set]!.text);
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) expect(KNOWN_ENV, name).toContain(name);
    const config = literalConfig(gatewayOf(deploymentOf(set)));
    expect(config.mode).toBe(SETS[set]!.mode ?? 'translate');
    expect(config.host).toBe(isSidecarLayout(SETS[set]!) ? '127.0.0.1' : '0.0.0.0');
    // The admin listener (probes, metrics) is always open to the pod network.
    expect(config.adminHost ?? config.host).toBe('0.0.0.0');
  });

  it.each(sets)('%s: probes on the admin listener, a drain before stopping, non-root and read-only, secrets from Secrets', (set) => {
    const values = merge(DEFAULTS, SETS[set]!);
    const deployment = deploymentOf(set);
    const secrets = expectGatewayPod(deployment);
    const expected = [values.pageTokenKey.secretName, values.tls.secretName, values.store.type === 'postgres' && values.store.postgres.secretName].filter(Boolean);
    expect(secrets.sort()).toEqual([...new Set(expected)].sort());
    const gateway = gatewayOf(deployment);
    expect(gateway.readinessProbe.periodSeconds).toBe(values.probes.readiness.periodSeconds);
    expect(gateway.startupProbe.failureThreshold).toBe(values.probes.startup.failureThreshold);
    expect(gateway.lifecycle.preStop.exec.command).toEqual(['sleep', String(values.preStopSleepSeconds)]);
    expect(deployment.spec.template.spec.automountServiceAccountToken).toBe(false);
  });

  it.each(sets)('%s: sheds load at the configured share of the memory limit', (set) => {
    const values = merge(DEFAULTS, SETS[set]!);
    const gateway = gatewayOf(deploymentOf(set));
    const limit = gateway.resources.limits.memory as string;
    const bytes = Number(limit.slice(0, -2)) * (limit.endsWith('Gi') ? 1024 ** 3 : 1024 ** 2);
    expect(literalConfig(gateway).shedMaxRssBytes).toBe(Math.floor((bytes * values.shedding.memoryPercent) / 100));
    expect(literalConfig(gateway).shedMaxRssBytes).toBeLessThan(bytes);
  });

  it.each(sets)('%s: one store, and a PodDisruptionBudget exactly when there are replicas to keep', (set) => {
    const values = merge(DEFAULTS, SETS[set]!);
    const { docs } = rendered[set]!;
    const deployment = deploymentOf(set);
    const podLabels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.replicas).toBe(values.replicaCount);
    const config = literalConfig(gatewayOf(deployment));
    const env = envOf(gatewayOf(deployment));
    if (values.store.type === 'postgres') {
      expect(env.V2GW_STORE!.valueFrom.secretKeyRef).toEqual({ name: values.store.postgres.secretName, key: values.store.postgres.secretKey });
      // The image's V2GW_DATA_DIR is cleared, or the gateway would refuse two stores.
      expect(env.V2GW_DATA_DIR).toEqual({ name: 'V2GW_DATA_DIR', value: '' });
    } else {
      expect(config.dataDir).toBe('/data');
    }
    const pdbs = byKind(docs, 'PodDisruptionBudget');
    expect(pdbs.length).toBe(values.replicaCount > 1 ? 1 : 0);
    for (const pdb of pdbs) {
      expect(pdb.spec.maxUnavailable).toBeLessThan(values.replicaCount);
      expect(podLabels).toMatchObject(pdb.spec.selector.matchLabels);
    }
    for (const service of byKind(docs, 'Service')) expect(podLabels).toMatchObject(service.spec.selector);
    expect(podLabels).toMatchObject(deployment.spec.selector.matchLabels);
  });

  it('translate: the defaults render one pod over v1 on an embedded store, with h2c on the Service', () => {
    const { docs } = rendered.translate!;
    expect(docs.map((d) => d.kind).sort()).toEqual(['Deployment', 'Service', 'ServiceAccount']);
    const config = literalConfig(gatewayOf(deploymentOf('translate')));
    expect(config.v1Url).toBe(V1);
    expect(config.pageTokenKeyFile).toBeUndefined();
    expect(byKind(docs, 'Service')[0]!.spec.ports).toEqual([{ name: 'api', port: 80, targetPort: 'api', appProtocol: 'kubernetes.io/h2c' }]);
  });

  it('native-postgres: renders the pod deploy/kubernetes/native-postgres.yaml describes by hand', () => {
    const chart = deploymentOf('native-postgres');
    const example = byKind(exampleOf('native-postgres.yaml'), 'Deployment')[0]!;
    const [ours, theirs] = [gatewayOf(chart), gatewayOf(example)];
    for (const field of ['image', 'ports', 'startupProbe', 'readinessProbe', 'livenessProbe', 'lifecycle', 'resources', 'securityContext', 'volumeMounts']) {
      expect(ours[field], field).toEqual(theirs[field]);
    }
    expect(envOf(ours)).toEqual(envOf(theirs));
    expect(chart.spec.replicas).toBe(example.spec.replicas);
    expect(chart.spec.strategy).toEqual(example.spec.strategy);
    const [ourPod, theirPod] = [chart.spec.template.spec, example.spec.template.spec];
    expect(ourPod.securityContext).toEqual(theirPod.securityContext);
    expect(ourPod.volumes).toEqual(theirPod.volumes);
    expect(ourPod.terminationGracePeriodSeconds).toBe(theirPod.terminationGracePeriodSeconds);
  });

  it('sidecar-sized: sheds at the same threshold as deploy/kubernetes/sidecar.yaml for the same limit', () => {
    const example = gatewayOf(byKind(exampleOf('sidecar.yaml'), 'Deployment')[0]!);
    const ours = gatewayOf(deploymentOf('sidecar-sized'));
    expect(ours.resources).toEqual(example.resources);
    expect(envOf(ours).V2GW_SHED_MAX_RSS_BYTES).toEqual(envOf(example).V2GW_SHED_MAX_RSS_BYTES);
  });

  it('everything: each `config` value reaches the gateway as set, large numbers as digits', () => {
    const gateway = gatewayOf(deploymentOf('everything'));
    const config = literalConfig(gateway);
    for (const [key, value] of Object.entries(EVERY_CONFIG)) expect(config[key as keyof typeof config], key).toBe(value);
    expect(envOf(gateway).V2GW_WALK_CACHE_BYTES!.value).toBe('33554432');
    expect(config.port).toBe(8443);
    expect(config.adminPort).toBe(9464);
    expect(envOf(gateway).OTEL_EXPORTER_OTLP_ENDPOINT!.value).toBe('http://otel-collector.observability:4318');
    expect(gateway.image).toBe('registry.example.internal/v2gw:0.1.0-rc.1');
  });

  it('everything: TLS on the API port only, and a ServiceMonitor on an admin Service of its own', () => {
    const { docs } = rendered.everything!;
    const [api, admin] = [byKind(docs, 'Service').find((s) => s.metadata.name === 'gateway')!, byKind(docs, 'Service').find((s) => s.metadata.name === 'gateway-admin')!];
    // TLS on the API port: ALPN picks HTTP/2 or HTTP/1.1, so the port is no longer h2c.
    expect(api.spec.ports).toEqual([{ name: 'api', port: 443, targetPort: 'api' }]);
    expect(api.spec.type).toBe('LoadBalancer');
    expect(envOf(gatewayOf(deploymentOf('everything'))).V2GW_TLS_CERT!.value).toBe('/var/run/secrets/v2gw-tls/tls.crt');
    const [monitor] = byKind(docs, 'ServiceMonitor');
    expect(monitor!.metadata.labels.release).toBe('prometheus');
    // It selects the admin Service and only it, on a port that Service has.
    expect(admin.metadata.labels).toMatchObject(monitor!.spec.selector.matchLabels);
    expect(api.metadata.labels).not.toMatchObject(monitor!.spec.selector.matchLabels);
    expect(admin.spec.ports.map((p: Doc) => p.name)).toContain(monitor!.spec.endpoints[0].port);
    expect(monitor!.spec.endpoints[0]).toMatchObject({ path: '/metrics', interval: '15s' });
    expect(deploymentOf('everything').spec.template.metadata.annotations).toEqual({ 'example.com/owner': 'identity' });
  });

  it('assumed-identity: the projected service-account token, for the issuer alone, is the file the gateway reads', () => {
    const pod = deploymentOf('assumed-identity').spec.template.spec;
    const gateway = gatewayOf(deploymentOf('assumed-identity'));
    const config = literalConfig(gateway);
    expect(config).toMatchObject({ identity: IDENTITY_UID, issuerUrl: 'https://issuer.enforce.dev', identityTokenFile: '/var/run/secrets/v2gw-identity/token' });
    const volume = pod.volumes.find((v: Doc) => v.name === 'identity-token');
    expect(volume.projected.sources).toEqual([{ serviceAccountToken: { path: 'token', audience: 'https://issuer.enforce.dev', expirationSeconds: 3600 } }]);
    expect(gateway.volumeMounts).toContainEqual({ name: 'identity-token', mountPath: '/var/run/secrets/v2gw-identity', readOnly: true });
    // Only that token: the service account's API token is still not mounted.
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(byKind(rendered.translate!.docs, 'Deployment')[0]!.spec.template.spec.volumes.some((v: Doc) => v.name === 'identity-token')).toBe(false);
  });

  it("assumed-identity: the sidecar layout keeps the API on loopback, as deploy/kubernetes/sidecar.yaml does, beside the workload's containers", () => {
    const deployment = deploymentOf('assumed-identity');
    const pod = deployment.spec.template.spec;
    const gateway = gatewayOf(deployment);
    // A native sidecar: started before the workload, stopped after it.
    expect(pod.initContainers.map((c: Doc) => [c.name, c.restartPolicy])).toEqual([['v2gw', 'Always']]);
    expect(pod.containers).toEqual([WORKLOAD]);
    const config = literalConfig(gateway);
    expect([config.host, config.adminHost, config.identityAllowRemote]).toEqual(['127.0.0.1', '0.0.0.0', false]);
    const example = literalConfig(gatewayOf(byKind(exampleOf('sidecar.yaml'), 'Deployment')[0]!));
    expect([example.host, example.adminHost]).toEqual([config.host, config.adminHost]);
    expect(byKind(rendered['assumed-identity']!.docs, 'Service')).toEqual([]);
    // Opened on purpose: the API behind the Service, and the gateway told so.
    const remote = literalConfig(gatewayOf(deploymentOf('assumed-identity-remote')));
    expect([remote.host, remote.identityAllowRemote]).toEqual(['0.0.0.0', true]);
    expect(byKind(rendered['assumed-identity-remote']!.docs, 'Service').map((service) => service.spec.ports[0].targetPort)).toEqual(['api']);
  });

  it('NOTES: says how to reach the gateway, and warns of what an operator would not want to find out later', () => {
    const notes = (values: Doc) => {
      const run = helmWith(['install', 'v2gw', CHART, '--dry-run=client', '--namespace', 'gateways'], values);
      expect(run.status, run.stderr).toBe(0);
      return run.stdout.slice(run.stdout.indexOf('NOTES:'));
    };
    const translate = notes(SETS.translate!);
    expect(translate).toContain('port-forward svc/v2gw 8080:80');
    expect(translate).toContain('random key');
    expect(translate).not.toContain('verifies no bearer token');
    const native = notes(SETS['native-postgres']!);
    expect(native).toContain('Callers are authenticated against https://issuer.enforce.dev');
    expect(native).not.toContain('verifies no bearer token');
    expect(native).not.toContain('random key');
    const open = notes({ ...SETS['native-postgres']!, auth: { disabled: true } });
    expect(open).toContain('native mode verifies no bearer token');
    const assumed = notes(SETS['assumed-identity']!);
    expect(assumed).toContain(`act as identity ${IDENTITY_UID}`);
    expect(assumed).toContain('Sidecar layout: the API (REST and gRPC) listens on 127.0.0.1:8080 inside each pod, for the pod\'s own containers (workload) alone');
    expect(assumed).not.toContain('port-forward');
    expect(assumed).not.toContain('WARNING');
    expect(notes(SETS['assumed-identity-remote']!)).toContain('WARNING: identity.allowRemote');
  });
});

describe('deploy/helm/v2gw: a rendered pod runs', () => {
  const database = `v2gw_chart_${process.pid}_${Date.now().toString(36)}`;
  beforeAll(() => withPg((client) => client.query(`create database ${database}`)));
  afterAll(() => withPg((client) => client.query(`drop database if exists ${database} with (force)`)));

  it('native-postgres: its environment, the Secrets filled in, starts a gateway on PostgreSQL that its probes find ready', { timeout: 60_000 }, async () => {
    const { docs } = render(SETS['native-postgres']!);
    const env = envOf(gatewayOf(byKind(docs, 'Deployment')[0]!));
    const literal = Object.fromEntries(Object.entries(env).filter(([, e]) => 'value' in e).map(([k, e]) => [k, String(e.value)]));
    // What the kubelet would take from the Secret and the mounted file; the ports made free, on loopback.
    const url = new URL(PG_URL);
    url.pathname = `/${database}`;
    const keyFile = join(work, 'page-token-key');
    writeFileSync(keyFile, 'a-page-token-key-for-the-chart-test\n');
    const adminPort = await freePort();
    const gateway = await startCli({ ...literal, V2GW_STORE: url.toString(), V2GW_PAGE_TOKEN_KEY_FILE: keyFile, V2GW_HOST: '127.0.0.1', V2GW_PORT: String(await freePort()), V2GW_ADMIN_PORT: String(adminPort) });
    try {
      expect((await fetch(`http://127.0.0.1:${adminPort}/healthz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${adminPort}/readyz`)).status).toBe(200);
      expect(gateway.output()).toContain('"mode":"native"');
      expect(gateway.output()).not.toContain('a-page-token-key-for-the-chart-test');
    } finally {
      await gateway.stop();
    }
  });
});

/**
 * Every chart example the docs show: each `helm install … deploy/helm/v2gw …` command of README.md and
 * docs/*.md, run as `helm template` with its own `--set`s and `-f` files (a file is the doc's ```yaml
 * block whose first line names it, `# native.yaml`), renders, passes the schema, and sets the gateway
 * only what it accepts. Every such block is used by a command of its doc.
 */
describe('deploy/helm/v2gw: the examples in the docs', () => {
  const docs = ['README.md', ...['identity.md', 'operations.md', 'api.md', 'compare.md', 'testing.md'].map((f) => `docs/${f}`)];
  const examples = docs.flatMap((doc) => {
    const text = readFileSync(`${ROOT}${doc}`, 'utf8');
    const files = new Map<string, string>();
    for (const [, body] of text.matchAll(/```ya?ml\n([\s\S]*?)```/g)) {
      const name = /^# ([\w.-]+\.ya?ml)\n/.exec(body!)?.[1];
      if (name) files.set(name, body!);
    }
    const commands = [...text.matchAll(/^helm (?:install|template|upgrade --install) (\S+) deploy\/helm\/v2gw((?: [^\n#]*)?)$/gm)].map((m) => ({ release: m[1]!, args: m[2]!.trim().split(/\s+/).filter(Boolean) }));
    return commands.map((command) => ({ doc, ...command, files }));
  });

  it('finds the examples (the commands of README.md and docs/operations.md, and the sidecar layout of docs/identity.md)', () => {
    expect(examples.map((e) => e.doc)).toEqual(expect.arrayContaining(['README.md', 'docs/operations.md', 'docs/identity.md']));
    const used = new Set(examples.flatMap((e) => e.args.filter((_, i) => e.args[i - 1] === '-f').map((file) => `${e.doc}:${file}`)));
    for (const example of examples) for (const name of example.files.keys()) expect(used, `${example.doc}: ${name} is used by a helm command`).toContain(`${example.doc}:${name}`);
  });

  it.each(examples.map((e) => [`${e.doc}: helm … ${e.args.join(' ')}`, e] as const))('%s renders a pod the gateway accepts', (_, example) => {
    const args = example.args.map((arg, i) => {
      if (example.args[i - 1] !== '-f') return arg;
      const body = example.files.get(arg);
      expect(body, `${example.doc} shows ${arg}`).toBeDefined();
      const file = join(work, `${Math.random().toString(36).slice(2)}-${arg}`);
      writeFileSync(file, body!);
      return file;
    });
    const run = helm(['template', example.release, CHART, '--namespace', 'gateways', ...args]);
    expect(run.status, run.stderr).toBe(0);
    const deployment = byKind(parseAllDocuments(run.stdout).map((d) => d.toJS()).filter((d) => d), 'Deployment')[0]!;
    expectValidObject(deployment);
    expect(() => literalConfig(gatewayOf(deployment))).not.toThrow();
  });
});
