/**
 * The Kubernetes examples in deploy/: valid objects of their kinds (kubernetes-models' schemas), and
 * true to the gateway — every V2GW_* variable they set is a setting it reads, probes reach the admin
 * listener, secrets come from files or Secret references, and the sidecar's settings start a gateway.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Secret, Service } from 'kubernetes-models/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { OPTIONS, loadConfig } from '../../src/config.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const DIR = `${ROOT}deploy/kubernetes/`;
const MODELS: Record<string, new (data: any) => { validate(): void }> = { Deployment, Secret, Service, PodDisruptionBudget };

type Doc = Record<string, any>;
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
const docsOf = (file: string): Doc[] => parseAllDocuments(readFileSync(DIR + file, 'utf8')).map((d) => d.toJS());
const byKind = (docs: Doc[], kind: string) => docs.filter((d) => d.kind === kind);
const envOf = (container: Doc): Record<string, Doc> => Object.fromEntries((container.env ?? []).map((e: Doc) => [e.name, e]));
const gatewayOf = (deployment: Doc): Doc => {
  const spec = deployment.spec.template.spec;
  return [...(spec.initContainers ?? []), ...spec.containers].find((c: Doc) => c.name === 'v2gw');
};
const KNOWN_ENV = new Set(Object.values(OPTIONS).map((o) => o.env));

describe('deploy/kubernetes', () => {
  it('has the sidecar and the native PostgreSQL examples', () => {
    expect(files.sort()).toEqual(['native-postgres.yaml', 'sidecar.yaml']);
  });

  it.each(files)('%s: every object is valid for its kind', (file) => {
    for (const doc of docsOf(file)) {
      const Model = MODELS[doc.kind];
      expect(Model, `a model for ${doc.kind}`).toBeDefined();
      expect(() => new Model!(doc).validate()).not.toThrow();
    }
  });

  it.each(files)('%s: the gateway container sets only settings the gateway reads, in a form it accepts', (file) => {
    const gateway = gatewayOf(byKind(docsOf(file), 'Deployment')[0]!);
    const env = envOf(gateway);
    for (const name of Object.keys(env)) expect(KNOWN_ENV, name).toContain(name);
    const literal = Object.fromEntries(Object.entries(env).filter(([, e]) => 'value' in e).map(([k, e]) => [k, String(e.value)]));
    const config = loadConfig([], { ...literal, V2GW_PAGE_TOKEN_KEY_FILE: '', V2GW_STORE: '' });
    expect(config.adminPort).toBeGreaterThan(0);
  });

  it.each(files)('%s: probes on the admin listener, a drain before stopping, non-root and read-only, secrets from a Secret', (file) => {
    const docs = docsOf(file);
    const deployment = byKind(docs, 'Deployment')[0]!;
    const gateway = gatewayOf(deployment);
    const env = envOf(gateway);
    const adminPort = Number(env.V2GW_ADMIN_PORT!.value);
    const named = Object.fromEntries(gateway.ports.map((p: Doc) => [p.name, p.containerPort]));
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      const get = gateway[probe]?.httpGet;
      expect(get, probe).toBeDefined();
      expect(named[get.port] ?? get.port).toBe(adminPort);
    }
    expect(gateway.readinessProbe.httpGet.path).toBe('/readyz');
    expect(gateway.livenessProbe.httpGet.path).toBe('/healthz');
    expect(gateway.lifecycle.preStop).toBeDefined();
    expect(gateway.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(deployment.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    expect(gateway.resources.limits.memory).toBeDefined();
    // The key is a file from a mounted Secret, never a literal in the manifest's env.
    expect(env.V2GW_PAGE_TOKEN_KEY).toBeUndefined();
    const keyFile = String(env.V2GW_PAGE_TOKEN_KEY_FILE!.value);
    const mount = gateway.volumeMounts.find((m: Doc) => keyFile.startsWith(`${m.mountPath}/`));
    const volume = deployment.spec.template.spec.volumes.find((v: Doc) => v.name === mount?.name);
    expect(volume?.secret?.secretName).toBeDefined();
    expect(byKind(docs, 'Secret').map((s) => s.metadata.name)).toContain(volume.secret.secretName);
    // With a read-only root, the only writable places are volumes: the data directory must be one.
    const dataDir = env.V2GW_DATA_DIR?.value;
    if (dataDir) expect(gateway.volumeMounts.map((m: Doc) => m.mountPath)).toContain(dataDir);
  });

  it('sidecar: a native sidecar (restartPolicy Always) with the API on loopback and the admin listener open to the kubelet', () => {
    const deployment = byKind(docsOf('sidecar.yaml'), 'Deployment')[0]!;
    const sidecar = deployment.spec.template.spec.initContainers.find((c: Doc) => c.name === 'v2gw');
    expect(sidecar.restartPolicy).toBe('Always');
    const env = envOf(sidecar);
    expect(env.V2GW_HOST!.value).toBe('127.0.0.1');
    expect(env.V2GW_ADMIN_HOST!.value).toBe('0.0.0.0');
    expect(Number(env.V2GW_SHED_MAX_RSS_BYTES!.value)).toBeLessThan(256 * 1024 * 1024);
  });

  it('native: several replicas share one PostgreSQL store from a Secret, a disruption budget and a Service over them', () => {
    const docs = docsOf('native-postgres.yaml');
    const deployment = byKind(docs, 'Deployment')[0]!;
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    const env = envOf(gatewayOf(deployment));
    expect(env.V2GW_MODE!.value).toBe('native');
    expect(env.V2GW_STORE!.valueFrom.secretKeyRef.name).toBe('v2gw-native');
    expect(env.V2GW_DATA_DIR!.value).toBe('');
    const labels = deployment.spec.template.metadata.labels;
    const pdb = byKind(docs, 'PodDisruptionBudget')[0]!;
    expect(pdb.spec.selector.matchLabels).toEqual(labels);
    expect(pdb.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
    const service = byKind(docs, 'Service')[0]!;
    expect(service.spec.selector).toEqual(labels);
  });

  it('sidecar: its settings start a gateway whose admin listener answers the probes', async () => {
    const deployment = byKind(docsOf('sidecar.yaml'), 'Deployment')[0]!;
    const env = Object.fromEntries(Object.entries(envOf(gatewayOf(deployment))).map(([k, e]) => [k, String(e.value)]));
    const dir = mkdtempSync(join(tmpdir(), 'v2gw-k8s-'));
    const free = async () => {
      const server = createServer().listen(0, '127.0.0.1');
      await once(server, 'listening');
      const { port } = server.address() as { port: number };
      server.close();
      return port;
    };
    writeFileSync(join(dir, 'key'), 'a-page-token-key-for-the-test\n');
    const adminPort = await free();
    const child = spawn(process.execPath, [`${ROOT}src/cli.ts`], {
      env: { ...process.env, ...env, V2GW_PORT: String(await free()), V2GW_ADMIN_PORT: String(adminPort), V2GW_DATA_DIR: dir, V2GW_PAGE_TOKEN_KEY_FILE: join(dir, 'key') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    try {
      const until = Date.now() + 15_000;
      while (!out.includes('v2gw listening') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      const healthz = await fetch(`http://127.0.0.1:${adminPort}/healthz`);
      expect(healthz.status).toBe(200);
      // v1.example.internal does not answer here: readiness says so, as a kubelet would see it.
      expect((await fetch(`http://127.0.0.1:${adminPort}/readyz`)).status).toBe(503);
      expect(out).not.toContain('a-page-token-key-for-the-test');
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
