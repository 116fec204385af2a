/**
 * `chainguard.platform.advisory.SecurityAdvisory` (v1): the public advisory
 * feed — security advisory documents by package, and vulnerability metadata,
 * which v1 pages itself (page_size, page_token, order_by, skip; the response
 * carries next_page_token, total_count and skipped).
 *
 * Decisions where the facts are silent: the feed is data the emulator is
 * given (tests add to it); a document's `cves` filter matches any of its
 * advisories' ids or aliases; metadata orders by `id` only (`id`, `id asc`,
 * `id desc`), default ascending; a page holds 50 by default and 200 at most;
 * a page token is v1's own opaque text holding the next offset and the order,
 * and a token of another order is INVALID_ARGUMENT.
 */
import { invalidArgument } from '../errors.ts';

export interface V1FeedDocument {
  id: string;
  advisories: { id: string; events: Record<string, unknown>[]; aliases: string[]; packageNamespace: string }[];
}

export interface V1VulnerabilityMetadata {
  id: string;
  summary: string;
  details: string;
  references: { type: string; url: string }[];
  severity: { type: string; score: string }[];
}

export interface MetadataQuery {
  id?: string;
  ids?: string[];
  pageSize?: number;
  pageToken?: string;
  orderBy?: string;
  skip?: number;
}

export class AdvisoryFeed {
  readonly #documents = new Map<string, V1FeedDocument>();
  readonly #metadata = new Map<string, V1VulnerabilityMetadata>();

  addDocument(document: V1FeedDocument): void {
    this.#documents.set(document.id, document);
  }

  addMetadata(metadata: V1VulnerabilityMetadata): void {
    this.#metadata.set(metadata.id, metadata);
  }

  documents(id: string | undefined, cves: readonly string[]): V1FeedDocument[] {
    return [...this.#documents.values()]
      .filter((d) => !id || d.id === id)
      .filter((d) => cves.length === 0 || d.advisories.some((a) => cves.includes(a.id) || a.aliases.some((alias) => cves.includes(alias))));
  }

  metadata(query: MetadataQuery): { items: V1VulnerabilityMetadata[]; nextPageToken: string; totalCount: string; skipped: number } {
    const order = (query.orderBy ?? '').trim() || 'id asc';
    if (!/^id( (asc|desc))?$/.test(order)) throw invalidArgument(`order_by: "${order}" is not one of id, id asc, id desc`);
    const desc = order.endsWith('desc');
    const size = Math.min(query.pageSize || 50, 200);
    if (size < 0 || (query.skip ?? 0) < 0) throw invalidArgument('page_size and skip must not be negative');
    let offset = 0;
    if (query.pageToken) {
      const cursor = decodeCursor(query.pageToken);
      if (!cursor || cursor.order !== order) throw invalidArgument('page_token: not a token of this query');
      offset = cursor.offset;
    }
    const matching = [...this.#metadata.values()]
      .filter((m) => (!query.id || m.id === query.id) && (!query.ids?.length || query.ids.includes(m.id)))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * (desc ? -1 : 1));
    const start = offset + (query.skip ?? 0);
    const items = matching.slice(start, start + size);
    const next = start + size < matching.length ? encodeCursor({ offset: start + size, order }) : '';
    return { items, nextPageToken: next, totalCount: String(matching.length), skipped: query.skip ?? 0 };
  }
}

function encodeCursor(cursor: { offset: number; order: string }): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(token: string): { offset: number; order: string } | undefined {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { offset?: unknown; order?: unknown };
    return typeof value.offset === 'number' && typeof value.order === 'string' ? { offset: value.offset, order: value.order } : undefined;
  } catch {
    return undefined;
  }
}
