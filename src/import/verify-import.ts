/**
 * After an import: both sides read through the gateway itself — translate mode
 * over v1, native mode over the store — and every resource compared, so what
 * is checked is what clients will be served after the cut-over, not the
 * store's rows.
 */
import { keptByV1, resourceMessageName, type ResourceMapping } from '../vocabulary/resource.ts';
import type { FastifyInstance } from 'fastify';
import type { DescMessage } from '@bufbuild/protobuf';
import { diffMessages } from '../compare/message-diff.ts';
import { httpCall } from '../compare/candidate-rest.ts';
import { declaredExpectations, Expectations, type ExpectedDifference } from '../compare/expected.ts';
import { methodName } from '../compare/request-of.ts';
import { loadConfig } from '../config.ts';
import { bindContract, type Binding } from '../contract/bindings.ts';
import { apiServices, contract } from '../contract/registry.ts';
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
  /** Fields that differ as declared (compare/expected.ts): how many resources each, and why. Not a failure. */
  expected: { field: string; reason: string; count: number }[];
}

export interface VerifyOptions {
  v1Url: string;
  authorization: string;
  store: Store;
  registry: MappingRegistry;
  roots: readonly string[];
  /** A team's own expected differences (`--compare-expect`), beside those the mappings declare. */
  expected?: readonly ExpectedDifference[];
}

/** Shown per list of differences: enough to find the cause, not a dump of the data. */
const SHOWN = 10;
const PAGE = 1000;

export async function verifyImport(options: VerifyOptions): Promise<ResourceDifferences[]> {
  const quiet = { write: () => {} };
  const base = loadConfig(['--log-level', 'silent', '--v1-max-body-bytes', String(1024 ** 3)], {});
  const translate = await buildGateway({ ...base, mode: 'translate', v1Url: options.v1Url }, { store: options.store, logStream: quiet, env: {} });
  const native = await buildGateway({ ...base, mode: 'native' }, { store: options.store, logStream: quiet, env: {} });
  const bindings = bindContract(apiServices(), options.registry.all());
  const expectations = new Expectations([...(options.expected ?? []), ...declaredExpectations(bindings)]);
  const read = (app: FastifyInstance, mapping: ResourceMapping, v1Rows: Map<string, Json>) => mapping.native?.singletonOf
    ? getEach(app, bindingOf(bindings, mapping, 'get'), [...v1Rows.keys()], options.authorization)
    : listAll(app, mapping, options.authorization);
  try {
    const results: ResourceDifferences[] = [];
    // Rows read per resource, so that a singleton (a repo's readme) is read at each of its parent's uids.
    const rowsOf = new Map<string, Map<string, Json>>();
    // Singletons last: each is read at the uids of its parent, read before it.
    const mappings = [...options.registry.all()].sort((a, b) => Number(Boolean(a.native?.singletonOf)) - Number(Boolean(b.native?.singletonOf)));
    for (const mapping of mappings) {
      if (!keptByV1(mapping)) continue;
      const parent = mapping.native?.singletonOf;
      if (!parent && !mapping.operations.includes('list')) continue;
      if (parent && !mapping.operations.includes('get')) continue;
      const parentRows = parent ? rowsOf.get(parent) ?? new Map() : new Map();
      const [fromV1, fromStore] = await Promise.all([read(translate, mapping, parentRows), read(native, mapping, parentRows)]);
      rowsOf.set(mapping.name, fromV1);
      const message = contract.getMessage(resourceMessageName(mapping));
      if (!message) throw new Error(`the contract has no message for ${mapping.name}`);
      // An expected difference names a method: the resource's Get (its own path), or its List (the path in its rows).
      const get = bindings.find((b) => b.mapping === mapping && b.kind === 'get');
      const list = bindings.find((b) => b.mapping === mapping && b.kind === 'list');
      const rows = list?.method.output.fields.find((f) => f.fieldKind === 'list' && f.listKind === 'message');
      const reasonFor = (field: string) => (get ? expectations.reasonFor(methodName(get.method), field) : undefined)
        ?? (list && rows ? expectations.reasonFor(methodName(list.method), `${rows.jsonName}[].${field}`) : undefined);
      results.push(compare(mapping.name, message, scoped(fromV1, options.roots), scoped(fromStore, options.roots), reasonFor));
    }
    return results;
  } finally {
    await translate.close();
    await native.close();
  }
}

type Json = Record<string, unknown>;

function bindingOf(bindings: readonly Binding[], mapping: ResourceMapping, kind: string): Binding {
  const binding = bindings.find((b) => b.mapping === mapping && b.kind === kind);
  if (!binding) throw new Error(`${mapping.name} has no ${kind} method in the contract`);
  return binding;
}

/**
 * Every row of a resource: its List, page by page, with every switch a list
 * has that shows rows its default hides (a `flag` filter: tags' include_*)
 * turned on, so no row is left out of the comparison.
 */
async function listAll(app: FastifyInstance, mapping: ResourceMapping, authorization: string): Promise<Map<string, Json>> {
  // A List's REST collection is its resource's plural name (the list envelope's key).
  const path = `/${mapping.service}/v2beta1/${mapping.name}`;
  const key = mapping.name;
  const shown = Object.entries(mapping.filters).filter(([, spec]) => spec.op === 'flag').map(([name]) => [name, 'true'] as [string, string]);
  const found = new Map<string, Json>();
  let token = '';
  do {
    const query = new URLSearchParams([['page_size', String(PAGE)], ...shown, ...(token ? [['page_token', token] as [string, string]] : [])]);
    const answer = await app.inject({ method: 'GET', url: `${path}?${query}`, headers: { authorization } });
    const body = answer.json() as Record<string, unknown>;
    if (answer.statusCode !== 200) throw new Error(`${path}: ${answer.statusCode} ${String(body.message ?? '')}`);
    for (const item of (body[key] as Record<string, unknown>[] | undefined) ?? []) found.set(String(item.uid), item);
    token = typeof body.nextPageToken === 'string' ? body.nextPageToken : '';
  } while (token);
  return found;
}

/** A singleton (a repo's readme) read at each uid of its parent; one a side does not serve is left out of that side. */
async function getEach(app: FastifyInstance, get: Binding, uids: readonly string[], authorization: string): Promise<Map<string, Json>> {
  const found = new Map<string, Json>();
  for (const uid of uids) {
    const call = httpCall(get.method, { uid });
    const answer = await app.inject({ method: 'GET', url: call.path, headers: { authorization } });
    if (answer.statusCode === 404) continue;
    const body = answer.json() as Json;
    if (answer.statusCode !== 200) throw new Error(`${call.path}: ${answer.statusCode} ${String(body.message ?? '')}`);
    found.set(uid, body);
  }
  return found;
}

function scoped(rows: Map<string, Record<string, unknown>>, roots: readonly string[]): Map<string, Record<string, unknown>> {
  if (roots.length === 0) return rows;
  return new Map([...rows].filter(([uid]) => roots.some((root) => uid === root || isDescendantOf(uid, root))));
}

/** Each resource both sides serve, compared as the comparison compares answers: as messages of the contract (compare/message-diff.ts). */
function compare(resource: string, message: DescMessage, v1: Map<string, Json>, store: Map<string, Json>, reasonFor: (field: string) => string | undefined): ResourceDifferences {
  const onlyInV1 = [...v1.keys()].filter((uid) => !store.has(uid));
  const onlyInStore = [...store.keys()].filter((uid) => !v1.has(uid));
  const different: ResourceDifferences['different'] = [];
  const expected = new Map<string, { field: string; reason: string; count: number }>();
  for (const [uid, a] of v1) {
    const b = store.get(uid);
    if (!b) continue;
    const differences = diffMessages(message, a, b, { ordered: true, created: false });
    const real = differences.filter((d) => {
      const reason = reasonFor(d.path);
      if (reason === undefined) return true;
      const entry = expected.get(d.path) ?? { field: d.path, reason, count: 0 };
      entry.count++;
      expected.set(d.path, entry);
      return false;
    });
    if (real.length > 0) different.push({ uid, fields: real.map((d) => d.path), classes: real.map((d) => d.class) });
  }
  return {
    resource, v1: v1.size, store: store.size,
    onlyInV1: onlyInV1.slice(0, SHOWN), onlyInStore: onlyInStore.slice(0, SHOWN), different: different.slice(0, SHOWN),
    expected: [...expected.values()],
  };
}

/** Whether verification found nothing to report. */
export function verified(results: readonly ResourceDifferences[]): boolean {
  return results.every((r) => r.v1 === r.store && r.onlyInV1.length === 0 && r.onlyInStore.length === 0 && r.different.length === 0);
}
