/**
 * What every Kubernetes manifest of the gateway must hold, whether written by hand (deploy/kubernetes/)
 * or rendered from the chart (deploy/helm/): objects valid for their kinds, only settings the gateway
 * reads in a form it accepts, probes on the admin listener, non-root and read-only, secrets from Secrets.
 */
import { expect } from 'vitest';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { OPTIONS, loadConfig, type Config } from '../../src/config.ts';

export type Doc = Record<string, any>;

const MODELS: Record<string, new (data: any) => { validate(): void }> = { Deployment, Secret, Service, ServiceAccount, PodDisruptionBudget, ServiceMonitor };

/** Fails unless kubernetes-models knows the kind and its schema accepts the object. */
export function expectValidObject(doc: Doc): void {
  const Model = MODELS[doc.kind];
  expect(Model, `a model for ${doc.kind}`).toBeDefined();
  expect(() => new Model!(doc).validate(), `${doc.kind} ${doc.metadata?.name}`).not.toThrow();
}

export const byKind = (docs: Doc[], kind: string): Doc[] => docs.filter((d) => d.kind === kind);
export const envOf = (container: Doc): Record<string, Doc> => Object.fromEntries((container.env ?? []).map((e: Doc) => [e.name, e]));

/** The gateway's container: a native sidecar (an init container) or an ordinary one. */
export function gatewayOf(deployment: Doc): Doc {
  const spec = deployment.spec.template.spec;
  return [...(spec.initContainers ?? []), ...spec.containers].find((c: Doc) => c.name === 'v2gw');
}

/** Every V2GW_* variable the gateway reads: src/config.ts declares them. */
export const KNOWN_ENV = new Set<string>(Object.values(OPTIONS).map((o) => o.env));

/** Every V2GW_* name anywhere in a manifest's text. */
export const v2gwNamesIn = (text: string): string[] => [...new Set(text.match(/\bV2GW_[A-Z0-9_]*/g) ?? [])];

/** The configuration the gateway makes of the container's literal variables; those read from files or Secrets are left out. */
export function literalConfig(gateway: Doc): Config {
  const env = envOf(gateway);
  const literal = Object.fromEntries(Object.entries(env).filter(([, e]) => 'value' in e).map(([k, e]) => [k, String(e.value)]));
  return loadConfig([], { ...literal, V2GW_PAGE_TOKEN_KEY_FILE: '', V2GW_STORE: '', V2GW_TLS_CERT: '', V2GW_TLS_KEY: '' });
}

/**
 * Probes on the admin listener, a drain before stopping, non-root and read-only with every written
 * place a volume, the page-token key a file from a Secret the pod's user can read. Returns the names
 * of the Secrets the pod reads, each once.
 */
export function expectGatewayPod(deployment: Doc): string[] {
  const pod = deployment.spec.template.spec;
  const gateway = gatewayOf(deployment);
  const env = envOf(gateway);
  const adminPort = Number(env.V2GW_ADMIN_PORT!.value);
  const named = Object.fromEntries(gateway.ports.map((p: Doc) => [p.name, p.containerPort]));
  for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
    const get = gateway[probe]?.httpGet;
    expect(get, probe).toBeDefined();
    expect(named[get.port] ?? get.port).toBe(adminPort);
    // The admin listener serves plain HTTP even when the API serves TLS.
    expect(get.scheme ?? 'HTTP').toBe('HTTP');
  }
  expect(gateway.startupProbe.httpGet.path).toBe('/healthz');
  expect(gateway.readinessProbe.httpGet.path).toBe('/readyz');
  expect(gateway.livenessProbe.httpGet.path).toBe('/healthz');
  expect(gateway.lifecycle.preStop).toBeDefined();
  expect(gateway.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
  expect(pod.securityContext.runAsNonRoot).toBe(true);
  expect(gateway.resources.limits.memory).toBeDefined();

  const mounts: Doc[] = gateway.volumeMounts ?? [];
  const volumeAt = (path: string): Doc | undefined => {
    const mount = mounts.find((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`));
    return pod.volumes.find((v: Doc) => v.name === mount?.name);
  };
  // The key is a file from a mounted Secret, never a literal in the manifest's env.
  expect(env.V2GW_PAGE_TOKEN_KEY).toBeUndefined();
  const secrets: string[] = [];
  for (const file of ['V2GW_PAGE_TOKEN_KEY_FILE', 'V2GW_TLS_CERT', 'V2GW_TLS_KEY']) {
    if (!env[file]) continue;
    const volume = volumeAt(String(env[file].value));
    expect(volume?.secret?.secretName, `${file} is a file from a Secret`).toBeDefined();
    secrets.push(volume!.secret.secretName);
  }
  if (env.V2GW_STORE) {
    // The URL carries the database password: from a Secret, never a literal.
    expect(env.V2GW_STORE.value).toBeUndefined();
    secrets.push(env.V2GW_STORE.valueFrom.secretKeyRef.name);
  }
  // Secret files belong to root and to the pod's fsGroup: unless others may read them, the (non-root)
  // user reads them only through that group.
  for (const volume of pod.volumes.filter((v: Doc) => v.secret)) {
    if ((volume.secret.defaultMode ?? 0o644) & 0o004) continue;
    expect(pod.securityContext.fsGroup, `${volume.name}: readable by the pod's user`).toBe(pod.securityContext.runAsGroup);
  }
  // With a read-only root, the only writable places are volumes: the data directory must be one.
  const dataDir = env.V2GW_DATA_DIR?.value;
  if (dataDir) expect(volumeAt(dataDir)?.emptyDir ?? volumeAt(dataDir)?.persistentVolumeClaim, dataDir).toBeDefined();
  expect(volumeAt('/tmp')?.emptyDir, '/tmp').toBeDefined();
  return [...new Set(secrets)];
}
