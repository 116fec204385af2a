/**
 * The Kubernetes examples in deploy/: valid objects of their kinds (kubernetes-models' schemas), and
 * true to the gateway — every V2GW_* variable they set is a setting it reads, probes reach the admin
 * listener, secrets come from files or Secret references, and the sidecar's settings start a gateway.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { freePort, startCli } from '../support/cli-process.ts';
import { KNOWN_ENV, byKind, envOf, expectGatewayPod, expectValidObject, gatewayOf, literalConfig, type Doc } from '../support/kubernetes.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const DIR = `${ROOT}deploy/kubernetes/`;

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
const docsOf = (file: string): Doc[] => parseAllDocuments(readFileSync(DIR + file, 'utf8')).map((d) => d.toJS());

describe('deploy/kubernetes', () => {
  it('has the sidecar and the native PostgreSQL examples', () => {
    expect(files.sort()).toEqual(['native-postgres.yaml', 'sidecar.yaml']);
  });

  it.each(files)('%s: every object is valid for its kind', (file) => {
    for (const doc of docsOf(file)) expectValidObject(doc);
  });

  it.each(files)('%s: the gateway container sets only settings the gateway reads, in a form it accepts', (file) => {
    const gateway = gatewayOf(byKind(docsOf(file), 'Deployment')[0]!);
    const env = envOf(gateway);
    for (const name of Object.keys(env)) expect(KNOWN_ENV, name).toContain(name);
    expect(literalConfig(gateway).adminPort).toBeGreaterThan(0);
  });

  it.each(files)('%s: probes on the admin listener, a drain before stopping, non-root and read-only, secrets from a Secret', (file) => {
    const docs = docsOf(file);
    const secrets = expectGatewayPod(byKind(docs, 'Deployment')[0]!);
    expect(secrets.length).toBeGreaterThan(0);
    for (const name of secrets) expect(byKind(docs, 'Secret').map((s) => s.metadata.name)).toContain(name);
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

  it("sidecar: assumes the workload's identity with a projected token for the issuer alone, which only the gateway mounts", () => {
    const pod = byKind(docsOf('sidecar.yaml'), 'Deployment')[0]!.spec.template.spec;
    const sidecar = pod.initContainers.find((c: Doc) => c.name === 'v2gw');
    const config = literalConfig(sidecar);
    expect(config.identity).toMatch(/^[0-9a-f]{40}\/[0-9a-f]{16}$/);
    const file = config.identityTokenFile!;
    const mount = sidecar.volumeMounts.find((m: Doc) => file.startsWith(`${m.mountPath}/`));
    expect(mount.readOnly).toBe(true);
    const volume = pod.volumes.find((v: Doc) => v.name === mount.name);
    expect(volume.projected.sources).toEqual([{ serviceAccountToken: { path: file.slice(mount.mountPath.length + 1), audience: config.issuerUrl, expirationSeconds: 3600 } }]);
    for (const container of pod.containers) expect((container.volumeMounts ?? []).map((m: Doc) => m.name)).not.toContain(mount.name);
     // docs/identity.md says the service account's API token is mounted into no container: so it is.
    expect(readFileSync(new URL('../../docs/identity.md', import.meta.url), 'utf8')).toContain('`automountServiceAccountToken: false`');
    expect(pod.automountServiceAccountToken).toBe(false);
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
    writeFileSync(join(dir, 'key'), 'a-page-token-key-for-the-test\n');
    const adminPort = await freePort();
    try {
      const gateway = await startCli({ ...env, V2GW_PORT: String(await freePort()), V2GW_ADMIN_PORT: String(adminPort), V2GW_DATA_DIR: dir, V2GW_PAGE_TOKEN_KEY_FILE: join(dir, 'key') });
      try {
        const healthz = await fetch(`http://127.0.0.1:${adminPort}/healthz`);
        expect(healthz.status).toBe(200);
        // v1.example.internal does not answer here: readiness says so, as a kubelet would see it.
        expect((await fetch(`http://127.0.0.1:${adminPort}/readyz`)).status).toBe(503);
        expect(gateway.output()).not.toContain('a-page-token-key-for-the-test');
      } finally {
        await gateway.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
