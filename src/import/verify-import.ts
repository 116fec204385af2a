/**
 * After an import: both sides read through the gateway itself — translate mode
 * over v1, native mode over the store — and every resource compared, so what
 * is checked is what clients will be served after the cut-over, not the
 * store's rows.
 */
import { keptByV1, resourceMessageName } from '../vocabulary/resource.ts';
import type { FastifyInstance } from 'fastify';
import type { DescMessage } from '@bufbuild/protobuf';
import { diffMessages } from '../compare/message-diff.ts';
import { loadConfig } from '../config.ts';
import { contract } from '../contract/registry.ts';
import type { MappingRegistry } from '../port/registry.ts';
import { buildGateway } from '../server.ts';
import type { Store } from '../store/types.ts';
import { isDescendantOf } from '../uidp.ts';

export interface ResourceDifferences {
  resource: string;
  /** Resources on each side. */
  v1: number;
  store: number;
  /** Uids only one side serves (at most a few of each). */
  onlyInV1: string[];
  onlyInStore: string[];
  /** Resources served differently, with the fields that differ and how (at most a few). */
  different: { uid: string; fields: string[]; classes: string[] }[];
}

export interface VerifyOptions {
  v1Url: string;
  authorization: string;
  store: Store;
  registry: MappingRegistry;
  roots: readonly string[];
}

/** Shown per list of differences: enough to find the cause, not a dump of the data. */
const SHOWN = 10;
const PAGE = 1000;

export async function verifyImport(options: VerifyOptions): Promise<ResourceDifferences[]> {
  const quiet = { write: () => {} };
  const base = loadConfig(['--log-level', 'silent', '--v1-max-body-bytes', String(1024 ** 3)], {});
  const translate = await buildGateway({ ...base, mode: 'translate', v1Url: options.v1Url }, { store: options.store, logStream: quiet, env: {} });
  const native = await buildGateway({ ...base, mode: 'native' }, { store: options.store, logStream: quiet, env: {} });
  try {
    const results: ResourceDifferences[] = [];
    for (const mapping of options.registry.all()) {
      if (!keptByV1(mapping) || !mapping.operations.includes('list')) continue;
      // A List's REST collection is its resource's plural name (the list envelope's key).
      const path = `/${mapping.service}/v2beta1/${mapping.name}`;
      const [fromV1, fromStore] = await Promise.all([
        listAll(translate, path, mapping.name, options.authorization),
        listAll(native, path, mapping.name, options.authorization),
      ]);
      const message = contract.getMessage(resourceMessageName(mapping));
      if (!message) throw new Error(`the contract has no message for ${mapping.name}`);
      results.push(compare(mapping.name, message, scoped(fromV1, options.roots), scoped(fromStore, options.roots)));
    }
    return results;
  } finally {
    await translate.close();
    await native.close();
  }
}

async function listAll(app: FastifyInstance, path: string, key: string, authorization: string): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  let token = '';
  do {
    const query = new URLSearchParams({ page_size: String(PAGE), ...(token ? { page_token: token } : {}) });
    const answer = await app.inject({ method: 'GET', url: `${path}?${query}`, headers: { authorization } });
    const body = answer.json() as Record<string, unknown>;
    if (answer.statusCode !== 200) throw new Error(`${path}: ${answer.statusCode} ${String(body.message ?? '')}`);
    for (const item of (body[key] as Record<string, unknown>[] | undefined) ?? []) found.set(String(item.uid), item);
    token = typeof body.nextPageToken === 'string' ? body.nextPageToken : '';
  } while (token);
  return found;
}

function scoped(rows: Map<string, Record<string, unknown>>, roots: readonly string[]): Map<string, Record<string, unknown>> {
  if (roots.length === 0) return rows;
  return new Map([...rows].filter(([uid]) => roots.some((root) => uid === root || isDescendantOf(uid, root))));
}

/** Each resource both sides serve, compared as the comparison compares answers: as messages of the contract (compare/message-diff.ts). */
function compare(resource: string, message: DescMessage, v1: Map<string, Record<string, unknown>>, store: Map<string, Record<string, unknown>>): ResourceDifferences {
  const onlyInV1 = [...v1.keys()].filter((uid) => !store.has(uid));
  const onlyInStore = [...store.keys()].filter((uid) => !v1.has(uid));
  const different: ResourceDifferences['different'] = [];
  for (const [uid, a] of v1) {
    const b = store.get(uid);
    if (!b) continue;
    const differences = diffMessages(message, a, b, { ordered: true, created: false });
    if (differences.length > 0) different.push({ uid, fields: differences.map((d) => d.path), classes: differences.map((d) => d.class) });
  }
  return {
    resource, v1: v1.size, store: store.size,
    onlyInV1: onlyInV1.slice(0, SHOWN), onlyInStore: onlyInStore.slice(0, SHOWN), different: different.slice(0, SHOWN),
  };
}

/** Whether verification found nothing to report. */
export function verified(results: readonly ResourceDifferences[]): boolean {
  return results.every((r) => r.v1 === r.store && r.onlyInV1.length === 0 && r.onlyInStore.length === 0 && r.different.length === 0);
}
