/**
 * The v1 advisory List (api-surface.md §10): every AdvisoryFilter field, the
 * OrderBy enum, and real paging — the one v1 list that pages. Tokens are
 * keyset cursors (the last row's sort value and id), signed so that they stay
 * opaque, and bound to the filters and order they were minted for.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalidArgument } from '../errors.ts';
import { matches, type UidpFilter } from '../query.ts';
import { compareTimestamps } from '../time.ts';
import { EVENT_TYPES } from '../vulnerability-messages.ts';
import type { EventKind, V1Advisory, V1AdvisoryEvent } from './advisory-records.ts';

export interface AdvisoryFilter {
  advisoryIds?: string[];
  legacyAdvisoryIds?: string[];
  id?: string;
  uidp?: UidpFilter;
  artifactType?: string[];
  artifactName?: string[];
  componentName?: string[];
  componentType?: string[];
  componentLocation?: string[];
  aliases?: string[];
  artifactArchitecture?: string[];
  pageToken?: string;
  /** int64: a decimal string off the wire, or a number when seeding code calls the state directly. */
  pageSize?: string | number;
  eventStatuses?: string[];
  eventAuthor?: string[];
  eventReviewer?: string[];
  eventTypes?: string[];
  orderBy?: string;
  excludeEventAuthor?: string[];
  latestEventType?: string;
  origin?: string;
}

export interface AdvisoryPage {
  /** AdvisoriesList.id, "ID of the group the advisories belong to". */
  id: string;
  items: V1Advisory[];
  nextPageToken: string;
  /** int64 as a string; always set. */
  totalCount: string;
}

// Decision: the proto states no page-size bounds; v1 takes v2's (default 50,
// at most 200, larger requests are lowered to 200, negative ones refused).
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

// ---------------------------------------------------------------- filters

/** A repeated filter: absent or empty means "no constraint"; otherwise any listed value matches. */
const anyOf = (wanted: readonly string[] | undefined, value: string | undefined): boolean =>
  !wanted?.length || (value !== undefined && wanted.includes(value));

const UNSPECIFIED_TYPE = 'EVENT_TYPE_FILTER_UNSPECIFIED';

export function eventType(event: V1AdvisoryEvent): string {
  const kind = (Object.keys(EVENT_TYPES) as EventKind[]).find((k) => event[k] !== undefined);
  return kind ? EVENT_TYPES[kind] : UNSPECIFIED_TYPE;
}

/**
 * Facts (AdvisoryFilter.latest_event_type): "the most recent approved event".
 * Decision: only APPROVED events count; the latest is the greatest
 * `timestamp`, a tie going to the later-created event.
 */
function latestApproved(events: readonly V1AdvisoryEvent[]): V1AdvisoryEvent | undefined {
  let latest: V1AdvisoryEvent | undefined;
  for (const event of events) {
    if (event.status === 'APPROVED' && (!latest || compareTimestamps(event.timestamp, latest.timestamp) >= 0)) latest = event;
  }
  return latest;
}

/**
 * The event-level filters. Decision: the positive ones (statuses, authors,
 * reviewers, types) must all hold for one and the same event, which is what a
 * review queue ("pending events by alice") needs; `excludeEventAuthor` drops an
 * advisory if any of its events is by a listed author. EVENT_TYPE_FILTER_UNSPECIFIED
 * is proto3's "not set" and constrains nothing, wherever it appears; ReviewStatus
 * UNKNOWN is a status events really have, so it filters like any other.
 */
function matchesEvents(events: readonly V1AdvisoryEvent[], f: AdvisoryFilter): boolean {
  const types = f.eventTypes?.filter((t) => t !== UNSPECIFIED_TYPE);
  const positive = [f.eventStatuses, f.eventAuthor, f.eventReviewer, types].some((list) => list?.length);
  const hit = (e: V1AdvisoryEvent): boolean =>
    anyOf(f.eventStatuses, e.status) && anyOf(f.eventAuthor, e.author) && anyOf(f.eventReviewer, e.reviewer) && anyOf(types, eventType(e));
  if (positive && !events.some(hit)) return false;
  if (f.excludeEventAuthor?.length && events.some((e) => f.excludeEventAuthor!.includes(e.author))) return false;
  if (f.latestEventType && f.latestEventType !== UNSPECIFIED_TYPE) {
    const latest = latestApproved(events);
    if (!latest || eventType(latest) !== f.latestEventType) return false;
  }
  return true;
}

/**
 * `originOf` resolves a package to its origin package (itself unless it was
 * registered as a subpackage). Facts (AdvisoryFilter.origin): when set, the
 * artifact-name filter is ignored.
 */
export function matchesAdvisory(a: V1Advisory, f: AdvisoryFilter, originOf: (name: string) => string): boolean {
  if (!matches(a, { ...(f.id && { id: f.id }), ...(f.uidp && { uidp: f.uidp }) })) return false;
  if (!anyOf(f.advisoryIds, a.advisoryId) || !anyOf(f.legacyAdvisoryIds, a.legacyAdvisoryID)) return false;
  if (!anyOf(f.artifactType, a.artifactType) || !anyOf(f.artifactArchitecture, a.artifactArchitecture)) return false;
  if (f.origin ? originOf(a.artifactName) !== f.origin : !anyOf(f.artifactName, a.artifactName)) return false;
  if (!anyOf(f.componentName, a.componentName) || !anyOf(f.componentType, a.componentType)) return false;
  if (!anyOf(f.componentLocation, a.componentLocation)) return false;
  if (f.aliases?.length && !a.aliases.some((alias) => f.aliases!.includes(alias))) return false;
  return matchesEvents(a.events, f);
}

// ---------------------------------------------------------------- order

type SortValue = string | readonly string[] | null;

interface Order {
  value(a: V1Advisory): SortValue;
  compare(x: SortValue, y: SortValue): number;
}

const byText = (x: SortValue, y: SortValue): number => (x! < y! ? -1 : x! > y! ? 1 : 0);

/** Decision: NULLs sort as PostgreSQL's defaults do — after every value ascending, before them descending. */
const nullsGreatest =
  (compare: (x: SortValue, y: SortValue) => number) =>
  (x: SortValue, y: SortValue): number =>
    x === null || y === null ? (x === null ? 1 : 0) - (y === null ? 1 : 0) : compare(x, y);

/** Decision: aliases sort as PostgreSQL compares text arrays: element by element, a prefix first. */
function byArray(x: SortValue, y: SortValue): number {
  const [a, b] = [x as readonly string[], y as readonly string[]];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = byText(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

const byTime = nullsGreatest((x, y) => compareTimestamps(x as string, y as string));

const ORDERS: Readonly<Record<string, Order>> = {
  ID: { value: (a) => a.id, compare: byText },
  CREATED_AT: { value: (a) => a.createdAt, compare: byTime },
  UPDATED_AT: { value: (a) => a.updatedAt, compare: byTime },
  DELETED_AT: { value: (a) => a.deletedAt ?? null, compare: byTime },
  ALIASES: { value: (a) => a.aliases, compare: byArray },
};

interface Key {
  v: SortValue;
  id: string;
}

/** The OrderBy value in force: ORDER_BY_UNSPECIFIED is the documented default, ID_ASC. */
function orderName(orderBy: string | undefined): string {
  return !orderBy || orderBy === 'ORDER_BY_UNSPECIFIED' ? 'ID_ASC' : orderBy;
}

/** Decision: ties on the sort value are broken by id, in the same direction (ORDER BY x DESC, id DESC). */
function comparator(name: string): (a: Key, b: Key) => number {
  const descending = name.endsWith('_DESC');
  const order = ORDERS[name.replace(/_(ASC|DESC)$/, '')]!;
  return (a, b) => {
    const c = order.compare(a.v, b.v) || byText(a.id, b.id);
    return descending ? -c : c;
  };
}

const keyOf = (name: string, a: V1Advisory): Key => ({ v: ORDERS[name.replace(/_(ASC|DESC)$/, '')]!.value(a), id: a.id });

// ---------------------------------------------------------------- tokens

/** Per process: a token from another emulator instance is as invalid as a forged one. */
const TOKEN_KEY = randomBytes(32);

interface Cursor extends Key {
  /** The order the token was minted for. */
  o: string;
  /** A digest of the filters it was minted for. */
  f: string;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Everything that selects rows; page size may change between pages, as AIP-158 allows. */
function filterDigest(f: AdvisoryFilter): string {
  const { pageToken: _t, pageSize: _s, orderBy: _o, ...selecting } = f;
  return createHmac('sha256', TOKEN_KEY).update(canonicalJson(selecting)).digest('base64url').slice(0, 22);
}

const sign = (payload: string): string => createHmac('sha256', TOKEN_KEY).update(payload).digest('base64url');

function encodeCursor(cursor: Cursor): string {
  const payload = Buffer.from(JSON.stringify(cursor)).toString('base64url');
  return `${payload}.${sign(payload)}`;
}

/** Decision: a token that is not ours, or that was minted for other filters or another order, is INVALID_ARGUMENT. */
function decodeCursor(token: string, order: string, digest: string): Key {
  const [payload = '', mac = ''] = token.split('.');
  const expected = Buffer.from(sign(payload));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidArgument('page_token: invalid');
  const cursor = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Cursor;
  if (cursor.o !== order || cursor.f !== digest) {
    throw invalidArgument('page_token: was issued for other filters or another order_by; start again without it');
  }
  return { v: cursor.v, id: cursor.id };
}

function pageSize(raw: string | number | undefined): number {
  const n = Number(raw ?? 0);
  if (!Number.isInteger(n) || n < 0) throw invalidArgument('page_size: must be a non-negative integer');
  return n === 0 ? DEFAULT_PAGE_SIZE : Math.min(n, MAX_PAGE_SIZE);
}

// ---------------------------------------------------------------- the page

/**
 * One page. `totalCount` counts every advisory matching the filters, across
 * pages (Decision: always reported). AdvisoriesList.id — Decision: the group
 * the query was scoped to with `uidp.childrenOf`, else "".
 */
export function advisoryPage(all: Iterable<V1Advisory>, f: AdvisoryFilter, originOf: (name: string) => string): AdvisoryPage {
  const name = orderName(f.orderBy);
  const compare = comparator(name);
  const size = pageSize(f.pageSize);
  const digest = filterDigest(f);
  const after = f.pageToken ? decodeCursor(f.pageToken, name, digest) : undefined;
  const matching = [...all].filter((a) => matchesAdvisory(a, f, originOf));
  const keyed = matching.map((a) => ({ a, key: keyOf(name, a) })).sort((x, y) => compare(x.key, y.key));
  const rest = after ? keyed.filter(({ key }) => compare(key, after) > 0) : keyed;
  const page = rest.slice(0, size);
  const last = page.at(-1);
  return {
    id: f.uidp?.childrenOf ?? '',
    items: page.map(({ a }) => a),
    nextPageToken: rest.length > size && last ? encodeCursor({ ...last.key, o: name, f: digest }) : '',
    totalCount: String(matching.length),
  };
}
