/**
 * One black-box v2 suite, run against every way the gateway can serve v2:
 *
 * - `translate`: the gateway over the in-process v1 emulator (stack.ts);
 * - `native`: the gateway in native mode on an embedded in-memory store;
 * - `native-pg`: native mode on PostgreSQL (a schema of its own per stack);
 * - `translate-pg`: translate mode keeping its store on PostgreSQL (what v1 lacks lives there).
 *
 * Tests talk HTTP to `client` only. What v2 cannot create (advisories, and
 * repos or tags with fields only the service sets) comes from `fixtures`, which speak v2 field names in both modes:
 * into the emulator's state (through the mapping's v2→v1 renames) or straight
 * into the store as native mode keeps it.
 *
 * PostgreSQL comes from V2GW_TEST_PG_URL, set by the run's globalSetup
 * (postgres-server.ts: the local server, else one started for the run); when
 * it does not answer, `native-pg` stacks fail to start with a message saying so.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { EmulatorState } from '../../src/emulator/v1/index.ts';
import type { ResourceMapping } from '../../src/vocabulary/resource.ts';
import { toV1 } from '../../src/translate/v1-body.ts';
import type { Json } from '../../src/vocabulary/json.ts';
import { normalize } from '../../src/vocabulary/document.ts';
import { buildGateway, type GatewayOptions } from '../../src/server.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { newChildUid, parentOf } from '../../src/uidp.ts';
import advisories from '../../mappings/advisories.ts';
import { FEED_FROM_V1 } from '../../mappings/methods/advisory-feed.ts';
import { manifestRow } from '../../mappings/methods/images.ts';
import repos from '../../mappings/repos.ts';
import tags from '../../mappings/tags.ts';
import { captureLogs, Client, startStack, type Stack } from './stack.ts';

export type ModeName = 'translate' | 'translate-pg' | 'native' | 'native-pg';

/** The modes every shared test runs in. */
export const MODES: readonly ModeName[] = ['translate', 'native'];
/** All of them, PostgreSQL included, for the subset that must hold on the shared engine too. */
export const ALL_MODES: readonly ModeName[] = ['translate', 'native', 'native-pg'];

export const PG_URL = process.env.V2GW_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Resources v2 cannot create, made the way each mode holds them. Fields use v2 names; each returns the new uid. */
export interface Fixtures {
  repo(parent: string, fields: Json): Promise<string>;
  tag(repo: string, fields: Json): Promise<string>;
  advisory(parent: string, fields: Json): Promise<string>;
  /**
   * v1's public advisory feed, in v1's shapes: into the emulator, or into the store as the import copies it
   * (each row by the mapping's own recipe, FEED_FROM_V1).
   */
  feed(v1: { documents?: Json[]; metadata?: Json[] }): Promise<void>;
  /**
   * What v1 says of an image a tag of the repo points at. The emulator answers every such image as an amd64 and
   * arm64 index by itself; native mode gets the row the import would copy, with `sizes` per architecture.
   */
  image(repo: string, digest: string, sizes: Record<string, string>): Promise<void>;
}

export interface ModeStack {
  mode: ModeName;
  url: string;
  client: Client;
  fixtures: Fixtures;
  logs: string[];
  /** Translate mode: the v1 emulator's URL. */
  emulatorUrl?: string;
  /** Translate mode: the v1 emulator's state, for v1's own data that no v2 call writes (the advisory feed). */
  emulator?: EmulatorState;
  /** Native modes: the store, for what only the import writes (v1's public feed, image manifests). */
  store?: Store;
  close(): Promise<void>;
}

export interface ModeOptions {
  /** Settings as the gateway's own flags, e.g. `['--body-limit', '1024']`. */
  flags?: string[];
  /** Clock for page-token expiry. */
  now?: () => number;
  /** Translate mode: point the gateway here (a proxy in front of the emulator) rather than at the emulator. */
  v1Url?: string;
  /** Native mode's event deliveries (a CA the test's sinks are signed by, a short back-off). */
  events?: GatewayOptions['events'];
}

export async function startMode(mode: ModeName, options: ModeOptions = {}): Promise<ModeStack> {
  const gatewayOptions: GatewayOptions = { ...(options.now ? { now: options.now } : {}), ...(options.events ? { events: options.events } : {}) };
  if (mode === 'translate' || mode === 'translate-pg') {
    const pg = mode === 'translate-pg' ? await openPostgresSchema() : undefined;
    const stack = await startStack({ flags: options.flags ?? [], gateway: { ...gatewayOptions, ...(pg ? { store: pg.store } : {}) }, ...(options.v1Url ? { v1Url: options.v1Url } : {}) });
    return translateStack(stack, mode, pg && (async () => {
      await pg.store.close();
      await pg.drop();
    }));
  }
  const opened = mode === 'native' ? { store: await openStore(':memory:'), drop: async () => {} } : await openPostgresSchema();
  return nativeStack(mode, opened.store, opened.drop, options.flags ?? [], gatewayOptions);
}

/**
 * `describe` once per mode, each with its own stack started before and
 * closed after its tests. `stack()` gives the running stack inside tests.
 */
export function describeModes(
  title: string,
  body: (stack: () => ModeStack, mode: ModeName) => void,
  options: ModeOptions & { modes?: readonly ModeName[] } = {},
): void {
  for (const mode of options.modes ?? MODES) {
    describe(`${title} [${mode}]`, () => {
      let running: ModeStack | undefined;
      beforeAll(async () => {
        running = await startMode(mode, options);
      });
      afterAll(async () => {
        await running?.close();
      });
      body(() => {
        if (!running) throw new Error(`the ${mode} stack did not start`);
        return running;
      }, mode);
    });
  }
}

// ---- translate ---------------------------------------------------------------

/** The field specs as a writer that may set everything sees them: fixtures model what the server holds, output-only fields too. */
function writable(fields: ResourceMapping['fields']): ResourceMapping['fields'] {
  return Object.fromEntries(Object.entries(fields).map(([key, spec]) => {
    const { outputOnly: _outputOnly, ...rest } = spec;
    return [key, spec.fields ? { ...rest, fields: writable(spec.fields) } : rest];
  }));
}

/** A fixture's v2 fields in the v1 shape the emulator stores. */
const asV1 = (mapping: ResourceMapping, fields: Json): never => toV1(writable(mapping.fields), fields) as never;

function translateStack(stack: Stack, mode: ModeName, drop?: () => Promise<void>): ModeStack {
  const state = stack.emulator.state;
  return {
    mode,
    url: stack.url,
    emulatorUrl: stack.emulator.url,
    emulator: state,
    client: stack.client,
    logs: stack.logs,
    close: async () => {
      await stack.close();
      await drop?.();
    },
    fixtures: {
      async repo(parent, fields) {
        return state.createRepo(parent, asV1(repos, fields)).id;
      },
      async tag(repo, fields) {
        return state.createTag(repo, asV1(tags, fields)).id;
      },
      async advisory(parent, fields) {
        return state.createAdvisory(parent, asV1(advisories, fields)).id;
      },
      async feed({ documents = [], metadata = [] }) {
        for (const document of documents) state.advisoryFeed.addDocument(document as never);
        for (const row of metadata) state.advisoryFeed.addMetadata(row as never);
      },
      async image() {},
    },
  };
}

// ---- native ------------------------------------------------------------------

async function nativeStack(mode: ModeName, store: Store, drop: () => Promise<void>, flags: string[], options: GatewayOptions): Promise<ModeStack> {
  const logs = captureLogs();
  const config = loadConfig(['--mode', 'native', '--port', '0', '--log-level', 'info', ...flags], {});
  const gateway = await buildGateway(config, { ...options, store, logStream: logs.stream });
  const url = await gateway.listen({ port: 0, host: '127.0.0.1' });

  /** A row as native mode keeps it: the mapping's zero-filled document with uid and times. */
  const insert = async (mapping: ResourceMapping, uid: string, fields: Json): Promise<string> => {
    const now = new Date().toISOString();
    const body: Json = { ...normalize(mapping.fields, fields, { keepOutputOnly: true }), uid };
    const createTime = typeof body.createTime === 'string' ? body.createTime : now;
    const updateTime = typeof body.updateTime === 'string' ? body.updateTime : createTime;
    if (mapping.fields.createTime) body.createTime = createTime;
    if (mapping.fields.updateTime) body.updateTime = updateTime;
    await store.resources.insert({ kind: mapping.name, uid, parent: parentOf(uid), body, createTime, updateTime });
    return uid;
  };

  return {
    mode,
    url,
    store,
    client: new Client(url),
    logs: logs.lines,
    async close() {
      await gateway.close();
      await store.close();
      await drop();
    },
    fixtures: {
      repo: (parent, fields) => insert(repos, newChildUid(parent), fields),
      tag: (repo, fields) => insert(tags, newChildUid(repo), fields),
      advisory: (parent, fields) => {
        const uid = newChildUid(parent);
        // As the v1 service mints them: a CGA id unless one is given, and each event a child of the advisory.
        const events = Array.isArray(fields.events) ? fields.events : [];
        return insert(advisories, uid, {
          advisoryId: `CGA-${randomBytes(6).toString('hex')}`,
          ...fields,
          events: events.map((event: Json) => ({ uid: newChildUid(uid), createTime: new Date().toISOString(), ...event })),
        });
      },
      async feed({ documents = [], metadata = [] }) {
        const now = new Date().toISOString();
        const [documentsFromV1, metadataFromV1] = [feedCopy('/advisory/v1/documents'), feedCopy('/advisory/v1/metadata')];
        for (const document of documents) await store.resources.insert(documentsFromV1.row(document, now));
        for (const row of metadata) await store.resources.insert(metadataFromV1.row(row, now));
      },
      async image(repo, digest, sizes) {
        await store.resources.insert(manifestRow(repo, digest, { architectures: Object.keys(sizes), sizes }, new Date().toISOString()));
      },
    },
  };
}

/** The import's recipe for one v1 feed route. */
function feedCopy(v1Path: string) {
  const copied = FEED_FROM_V1.find((entry) => entry.v1Path === v1Path);
  if (!copied) throw new Error(`the advisory feed mapping copies nothing from ${v1Path}`);
  return copied;
}

let pgReached: Promise<void> | undefined;

/** A fresh schema on the test PostgreSQL, dropped when the stack closes. Fails loudly when the server does not answer. */
async function openPostgresSchema(): Promise<{ store: Store; drop: () => Promise<void> }> {
  pgReached ??= withPg(async () => {});
  await pgReached;
  const schema = `v2gw_modes_${process.pid}_${randomBytes(4).toString('hex')}`;
  const store = await openStore(PG_URL, { schema, poolSize: 4 });
  return { store, drop: async () => { await withPg((client) => client.query(`drop schema if exists ${schema} cascade`)); } };
}

/** Runs `work` on a fresh connection to the test server, naming the server in the error when it is not there. */
export async function withPg<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`PostgreSQL is not reachable at ${PG_URL} (${(error as Error).message}); start it or set V2GW_TEST_PG_URL. These tests never skip.`);
  }
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}
