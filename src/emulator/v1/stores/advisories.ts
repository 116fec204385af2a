/**
 * Advisories and their events (api-surface.md §10). An advisory is a child of
 * its `parentId` group; its events are children of the advisory and are
 * stored apart from it, so that they can be created, listed and replaced on
 * their own while every read of an advisory shows them all.
 */
import { randomInt } from 'node:crypto';
import { newChildUid, parentOf } from '../uidp.ts';
import { alreadyExists, failedPrecondition, invalidArgument } from '../errors.ts';
import { canonicalTimestamp, copy, enumValue, existing, Rows, store, type EnumInput } from '../records.ts';
import { EVENT_TYPES, FALSE_POSITIVE_TYPE, REVIEW_STATUS } from '../vulnerability-messages.ts';
import { advisoryPage, type AdvisoryFilter, type AdvisoryPage } from './advisory-list.ts';
import type { EventBodies, EventKind, StoredAdvisory, V1Advisory, V1AdvisoryEvent } from './advisory-records.ts';

export interface AdvisoryEventFields extends EventBodies {
  /** Decision: the time the event happened; the server's clock when omitted. */
  timestamp?: string;
  /** bytes, as standard base64 (what protojson prints). */
  findings?: string;
  author?: string;
  reviewer?: string;
  status?: EnumInput;
  issue?: string;
}

export interface AdvisoryFields {
  artifactType: string;
  artifactName: string;
  artifactArchitecture?: string;
  componentName?: string;
  componentLocation?: string;
  componentType?: string;
  aliases?: string[];
  /** On create only: the advisory's first events. */
  events?: AdvisoryEventFields[];
  /** On create only: a CGA id to keep; one is minted when empty. */
  advisoryId?: string;
  author?: string;
  legacyAdvisoryID?: string;
}

/** The alphabet of CGA ids such as "CGA-xvgw-cvr7-9g2q" (no vowels, no look-alike digits). */
const CGA_ALPHABET = '23456789cfghjmpqrvwx';

function mintCgaId(): string {
  const part = (): string => Array.from({ length: 4 }, () => CGA_ALPHABET[randomInt(CGA_ALPHABET.length)]).join('');
  return `CGA-${part()}-${part()}-${part()}`;
}

/** `rows` holds the advisories themselves. */
export class AdvisoryStore extends Rows<StoredAdvisory> {
  readonly #events = new Map<string, V1AdvisoryEvent>();
  /** Advisory id → its event ids, in creation order. */
  readonly #eventIds = new Map<string, string[]>();
  /** CGA id → advisory id. */
  readonly #cgaIds = new Map<string, string>();
  /** Subpackage name → origin package name (see registerSubpackages). */
  readonly #origins = new Map<string, string>();
  counts(): { advisories: number; advisoryEvents: number } {
    return { advisories: this.rows.size, advisoryEvents: this.#events.size };
  }

  /**
   * The server resolves subpackages to their origin for the `origin` filter;
   * the emulator has no package index, so seeding registers them. A name never
   * registered is its own origin.
   */
  registerSubpackages(origin: string, subpackages: readonly string[]): void {
    for (const name of subpackages) this.#origins.set(name, origin);
  }

  #view(a: StoredAdvisory): V1Advisory {
    return { ...a, events: (this.#eventIds.get(a.id) ?? []).map((id) => this.#events.get(id)!) };
  }

  /** Decision: artifactType and artifactName say what an advisory is about, so both are required. */
  #fields(fields: AdvisoryFields): Omit<StoredAdvisory, 'id' | 'createdAt' | 'updatedAt' | 'advisoryId'> {
    for (const key of ['artifactType', 'artifactName'] as const) {
      if (!fields[key]) throw invalidArgument(`advisory.${key}: must not be empty`);
    }
    const values: Omit<StoredAdvisory, 'id' | 'createdAt' | 'updatedAt' | 'advisoryId'> = {
      artifactType: fields.artifactType,
      artifactName: fields.artifactName,
      artifactArchitecture: fields.artifactArchitecture ?? '',
      aliases: [...(fields.aliases ?? [])],
      author: fields.author ?? '',
    };
    // proto3 `optional`: presence is kept, so an explicit "" stays distinct from unset.
    for (const key of ['componentName', 'componentLocation', 'componentType', 'legacyAdvisoryID'] as const) {
      if (fields[key] !== undefined) values[key] = fields[key];
    }
    return values;
  }

  /** Decision: an event must be of exactly one type (the `type` oneof says what happened). */
  #event(id: string, fields: AdvisoryEventFields, defaultTime: string): V1AdvisoryEvent {
    const kinds = (Object.keys(EVENT_TYPES) as EventKind[]).filter((k) => fields[k] !== undefined);
    if (kinds.length !== 1) {
      throw invalidArgument(`advisory_event: exactly one event type is required (${Object.keys(EVENT_TYPES).join(', ')})`);
    }
    const kind = kinds[0]!;
    const body = copy(fields[kind]!);
    if (kind === 'falsePositiveDetermination') {
      body.type = enumValue(FALSE_POSITIVE_TYPE, body.type as EnumInput | undefined, 'advisory_event.false_positive_determination.type');
    }
    const event: V1AdvisoryEvent = {
      id,
      timestamp: fields.timestamp === undefined ? defaultTime : canonicalTimestamp(fields.timestamp, 'advisory_event.timestamp'),
      [kind]: body,
      findings: fields.findings ?? '',
      author: fields.author ?? '',
      reviewer: fields.reviewer ?? '',
      status: enumValue(REVIEW_STATUS, fields.status, 'advisory_event.status'),
    };
    if (fields.issue !== undefined) event.issue = fields.issue;
    return event;
  }

  /** Decision: a soft-deleted advisory can still be read but no longer written (FAILED_PRECONDITION). */
  #live(id: string): StoredAdvisory {
    const advisory = existing(this.rows, id, 'advisory');
    if (advisory.deletedAt) throw failedPrecondition(`advisory ${JSON.stringify(id)} is deleted`);
    return advisory;
  }

  /** Adding or replacing an event changes the advisory, so its updatedAt moves. */
  #touch(advisory: StoredAdvisory, now: string): void {
    store(this.rows, { ...advisory, updatedAt: now });
  }

  /**
   * Decision: the server owns id, createdAt, updatedAt and deletedAt (body
   * values are ignored); a non-empty advisoryId in the body is kept, so
   * imports keep their CGA ids, and must be unique (6); otherwise one is minted.
   */
  create(parent: string, fields: AdvisoryFields): V1Advisory {
    const group = this.ctx.parentGroup(parent, 'parent_id');
    const values = this.#fields(fields);
    if (fields.advisoryId && this.#cgaIds.has(fields.advisoryId)) throw alreadyExists(`advisory ${fields.advisoryId} already exists`);
    let advisoryId = fields.advisoryId || mintCgaId();
    while (this.#cgaIds.has(advisoryId)) advisoryId = mintCgaId();
    const id = newChildUid(group);
    const now = this.ctx.now();
    // Every event is checked before anything is stored: a bad event leaves no advisory behind.
    const events = (fields.events ?? []).map((e) => this.#event(newChildUid(id), e, now));
    store(this.rows, { id, ...values, createdAt: now, updatedAt: now, advisoryId });
    this.#cgaIds.set(advisoryId, id);
    for (const event of events) store(this.#events, event);
    this.#eventIds.set(id, events.map((e) => e.id));
    return this.#view(this.rows.get(id)!);
  }

  /**
   * PUT replaces the advisory's own fields. Decision: advisoryId is immutable
   * and `events` in the body are ignored — events change only through their
   * own routes, so a full replacement cannot erase an advisory's history.
   */
  update(id: string, fields: AdvisoryFields): V1Advisory {
    const { createdAt, advisoryId } = this.#live(id);
    return this.#view(store(this.rows, { id, ...this.#fields(fields), createdAt, updatedAt: this.ctx.now(), advisoryId }));
  }

  list(filter: AdvisoryFilter = {}): AdvisoryPage {
    const views = [...this.rows.values()].map((a) => this.#view(a));
    return advisoryPage(views, filter, (name) => this.#origins.get(name) ?? name);
  }

  /**
   * Facts: Advisory.deleted_at exists and OrderBy can sort by it, so Delete is
   * a soft delete: `deletedAt` is set and the advisory stays listed.
   */
  delete(id: string): void {
    const advisory = this.#live(id);
    store(this.rows, { ...advisory, deletedAt: this.ctx.now() });
  }

  createEvent(advisoryId: string, fields: AdvisoryEventFields): V1AdvisoryEvent {
    if (advisoryId === '') throw invalidArgument('parent_id: must be the UIDP of an advisory');
    const advisory = this.#live(advisoryId);
    const now = this.ctx.now();
    const event = store(this.#events, this.#event(newChildUid(advisoryId), fields, now));
    this.#eventIds.set(advisoryId, [...(this.#eventIds.get(advisoryId) ?? []), event.id]);
    this.#touch(advisory, now);
    return event;
  }

  /**
   * Facts (AdvisoryEventFilter.parent_id): "the IAM scope identifier. If you
   * are fetching a single AdvisoryEvent you can use this to get the exact
   * one." Decision: the events at or below that UIDP — an advisory's events,
   * one event, or every event of a group's advisories; none is an empty list.
   */
  listEvents(scope: string): V1AdvisoryEvent[] {
    if (scope === '') throw invalidArgument('parent_id: must not be empty');
    return [...this.#events.values()].filter((e) => e.id === scope || e.id.startsWith(`${scope}/`));
  }

  /** A whole replacement, except that an omitted timestamp keeps the event's time (Decision). */
  updateEvent(id: string, fields: AdvisoryEventFields): V1AdvisoryEvent {
    const current = existing(this.#events, id, 'advisory event');
    const advisory = this.#live(parentOf(id));
    const now = this.ctx.now();
    const event = store(this.#events, this.#event(id, fields, current.timestamp));
    this.#touch(advisory, now);
    return event;
  }
}
