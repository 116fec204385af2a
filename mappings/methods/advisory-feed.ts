/**
 * SecurityAdvisoryService (advisory v2beta1): the public advisory feed, over
 * v1's `/advisory/v1/…` (chainguard-dev/sdk: proto/platform/advisory/v1/advisory.platform.proto, its SecurityAdvisory).
 * The shapes are v1's with enum names behind a `TYPE_` prefix (v1's
 * false-positive types carry `FPT_`), `severity` → `severities`, and the list
 * key → the plural. v1 has no `UBUNTU` twin in v2: such a severity shows as
 * TYPE_UNSPECIFIED with its score, as any unknown value does. The renames are
 * field specs laid over the contract's messages, rendered by the engine.
 *
 * ListVulnerabilityMetadata pages in v1 itself: the gateway hands v1's token
 * to the client sealed inside its own (bound to the request), never as is.
 * ListResolvedVulnsReports is not served: its one selector, `image_refs`, is a
 * repeated message, which v1's REST route cannot read from a query string.
 *
 * Native mode serves the feed from rows of its own kinds, one per document and
 * one per vulnerability, which the import copies from v1's two feed routes
 * (FEED_FROM_V1) rendered as translate mode renders them, so both modes answer
 * alike over the same v1. They are not derived from the stored advisories:
 * the metadata (summary, references, severities) is in no advisory, and the
 * feed is public (no token) while advisories belong to organisations, so a
 * feed made from them would show one organisation's advisories to anyone.
 */
import { invalidField } from '../../src/aip/errors.ts';
import { contractFields, withContract } from '../../src/contract/fields.ts';
import { contract } from '../../src/contract/registry.ts';
import type { CustomMethod } from '../../src/vocabulary/custom-method.ts';
import { enumRename, prefixedEnum, type FieldSpec } from '../../src/vocabulary/resource.ts';
import { renderV2 } from '../../src/translate/v1-row.ts';
import type { Json } from '../../src/vocabulary/json.ts';
import type { StoreFilter } from '../../src/store/types.ts';
import { v1Int64, v1ListRows, v1String } from '../../src/v1/answer-fields.ts';
import { allRows, type CopiedFromV1 } from './store-rows.ts';

const NO_REPORTS = 'native mode keeps no resolved-vulnerability reports: v1 derives them from its scans of every image';
/** The store's kinds for the feed: a document's uid is its id (a package), a vulnerability's its id (a CVE). */
const DOCUMENTS_KIND = 'advisoryDocuments';
const METADATA_KIND = 'vulnerabilityMetadata';
/** ListVulnerabilityMetadata's page sizes, as v1's. */
const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;
const PACKAGE = 'chainguard.platform.advisory.v2beta1';

const REFERENCE_TYPE = prefixedEnum('TYPE_', ['UNSPECIFIED', 'ADVISORY', 'ARTICLE', 'DETECTION', 'DISCUSSION', 'REPORT', 'FIX', 'INTRODUCED', 'PACKAGE', 'EVIDENCE', 'WEB'], ['UNSPECIFIED', 'TYPE_UNSPECIFIED']);
const SEVERITY_TYPE = prefixedEnum('TYPE_', ['UNSPECIFIED', 'CVSS_V2', 'CVSS_V3', 'CVSS_V4'], ['UNSPECIFIED', 'TYPE_UNSPECIFIED']);
const FALSE_POSITIVE_TYPE = enumRename(
  ['UNSPECIFIED', 'VULNERABILITY_RECORD_ANALYSIS_CONTESTED', 'COMPONENT_VULNERABILITY_MISMATCH', 'VULNERABLE_CODE_VERSION_NOT_USED',
    'VULNERABLE_CODE_NOT_INCLUDED_IN_PACKAGE', 'VULNERABLE_CODE_NOT_IN_EXECUTION_PATH', 'VULNERABLE_CODE_CANNOT_BE_CONTROLLED_BY_ADVERSARY',
    'INLINE_MITIGATIONS_EXIST'].map((name) => [`FPT_TYPE_${name}`, `TYPE_${name}`] as const),
  'TYPE_UNSPECIFIED',
);

/** A message of the feed as the contract declares it, with v1's differences laid over it. */
function fieldsOf(message: string, declared: Readonly<Record<string, FieldSpec>>): Readonly<Record<string, FieldSpec>> {
  return withContract(contractFields(contract.getMessage(`${PACKAGE}.${message}`)!), declared, message);
}

const DOCUMENT = fieldsOf('Document', {
  advisories: { fields: { events: { fields: { falsePositiveDetermination: { fields: { type: { enum: FALSE_POSITIVE_TYPE } } } } } } },
});
const METADATA = fieldsOf('VulnerabilityMetadata', {
  references: { fields: { type: { enum: REFERENCE_TYPE } } },
  severities: { v1: 'severity', fields: { type: { enum: SEVERITY_TYPE } } },
});

/** The feed's v1 data as the import copies it into the store. */
export const FEED_FROM_V1: readonly CopiedFromV1[] = [
  { kind: DOCUMENTS_KIND, v1Path: '/advisory/v1/documents', row: (v1, now) => feedRow(DOCUMENTS_KIND, renderV2(DOCUMENT, v1), now) },
  {
    kind: METADATA_KIND, v1Path: '/advisory/v1/metadata', paging: { pageSize: 'pageSize', pageToken: 'pageToken', size: MAX_PAGE },
    row: (v1, now) => feedRow(METADATA_KIND, renderV2(METADATA, v1), now),
  },
];

function feedRow(kind: string, body: Json, now: string) {
  return { kind, uid: String(body.id), parent: '', body, createTime: now, updateTime: now };
}

/** v1's documents filter, as the emulator reads the facts: `cves` matches any advisory's id or alias. */
function mentionsAny(document: Json, cves: readonly string[]): boolean {
  const advisories = Array.isArray(document.advisories) ? (document.advisories as Json[]) : [];
  return advisories.some((a) => cves.includes(String(a.id)) || (Array.isArray(a.aliases) && a.aliases.some((alias) => cves.includes(String(alias)))));
}

export const listDocuments: CustomMethod = {
  touches: [DOCUMENTS_KIND],
  async translate(request, v1) {
    const answer = await v1.call({ method: 'GET', path: '/advisory/v1/documents', query: { id: request.id as string | undefined, cves: request.cves as string[] | undefined } });
    return { documents: v1ListRows(answer).map((row) => renderV2(DOCUMENT, row as Json)) };
  },
  async native(request, access) {
    const id = typeof request.id === 'string' ? request.id : '';
    const cves = Array.isArray(request.cves) ? (request.cves as string[]) : [];
    const filters: StoreFilter[] = id ? [{ field: 'uid', op: 'eq', value: id }] : [];
    const documents = (await allRows(access.store, DOCUMENTS_KIND, filters)).map((row) => row.body);
    return { documents: cves.length === 0 ? documents : documents.filter((document) => mentionsAny(document, cves)) };
  },
};

/** `id`, `id asc` or `id desc` (the only order v1's feed takes, as the emulator reads it): descending or not. */
function metadataOrder(orderBy: unknown): boolean {
  const order = typeof orderBy === 'string' ? orderBy.trim().replace(/\s+/g, ' ') : '';
  if (!/^(id( (asc|desc))?)?$/.test(order)) throw invalidField('order_by', `"${order}" is not one of id, id asc, id desc`);
  return order.endsWith('desc');
}

function nonNegative(field: string, value: unknown): number {
  const n = value === undefined || value === null ? 0 : Number(value);
  if (!Number.isInteger(n) || n < 0) throw invalidField(field, 'must not be negative');
  return n;
}

export const listVulnerabilityMetadata: CustomMethod = {
  touches: [METADATA_KIND],
  async translate(request, v1) {
    const v1Token = v1.pages.cursor?.after[0];
    const answer = await v1.call({
      method: 'GET',
      path: '/advisory/v1/metadata',
      query: {
        id: request.id as string | undefined,
        ids: request.ids as string[] | undefined,
        pageSize: request.pageSize === undefined ? undefined : String(Math.min(Number(request.pageSize), 200)),
        orderBy: request.orderBy as string | undefined,
        skip: request.skip === undefined ? undefined : String(request.skip),
        pageToken: typeof v1Token === 'string' ? v1Token : undefined,
      },
    });
    const next = v1String(answer, 'nextPageToken');
    // v1 says what this request skipped; v2's `skipped` adds up across the pages of one query.
    const skipped = (v1.pages.cursor?.skipped ?? 0) + Number(answer.skipped ?? 0);
    return {
      vulnerabilityMetadata: v1ListRows(answer).map((row) => renderV2(METADATA, row as Json)),
      nextPageToken: next ? v1.pages.seal({ after: [next], skipped }) : '',
      totalCount: v1Int64(answer, 'totalCount'),
      skipped,
    };
  },
  async native(request, access) {
    const desc = metadataOrder(request.orderBy);
    const size = Math.min(nonNegative('page_size', request.pageSize) || DEFAULT_PAGE, MAX_PAGE);
    const skip = nonNegative('skip', request.skip);
    const filters: StoreFilter[] = [];
    if (typeof request.id === 'string' && request.id) filters.push({ field: 'uid', op: 'eq', value: request.id });
    const ids = Array.isArray(request.ids) ? (request.ids as string[]) : [];
    if (ids.length > 0) filters.push({ field: 'uid', op: 'in', value: ids });
    const cursor = access.pages.cursor;
    const page = await access.store.resources.list({
      kind: METADATA_KIND, filters, order: [{ field: 'uid', desc }], skip, limit: size, ...(cursor ? { after: cursor.after } : {}),
    });
    // As every List of the gateway: what was skipped adds up across the pages of one query.
    const skipped = (cursor?.skipped ?? 0) + skip;
    const last = page.rows[page.rows.length - 1];
    return {
      vulnerabilityMetadata: page.rows.map((row) => row.body),
      nextPageToken: page.more && last ? access.pages.seal({ after: [last.uid], skipped }) : '',
      totalCount: String(page.total),
      skipped,
    };
  },
};

export const listResolvedVulnsReports: CustomMethod = {
  unserved: {
    translate: 'v1\'s REST route cannot take image_refs (a repeated message cannot be set from a query string), and the gateway speaks REST to v1',
    native: NO_REPORTS,
  },
};
