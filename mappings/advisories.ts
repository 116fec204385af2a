/**
 * Advisory (chainguard-dev/sdk: proto/platform/advisory/v1/advisory.platform.proto), List/Get only in v2. Renames: `legacyAdvisoryID`
 * (the proto field's literal JSON name) → `legacyAdvisoryId`, `deletedAt` →
 * `deleteTime`; in events `timestamp` → `createTime`, `status` (ReviewStatus) →
 * `reviewState` (prefixed ReviewState), scanv1 `subpackageName` → `subpackage`
 * and `componentName` → `component`, false-positive types gain `TYPE_`; v1's
 * `componentLocationChanged` event type has no v2 counterpart. List filters are
 * pluralised. v1 pages advisories itself (int64 `pageSize`, an `orderBy` enum),
 * so the gateway walks v1's pages rather than fetching everything; the filters
 * only v1 can judge (event states, authors, types, origin, aliases) are left to it.
 */
import { listDocuments, listResolvedVulnsReports, listVulnerabilityMetadata } from './methods/advisory-feed.ts';
import { PACKAGE_ORIGINS_KIND } from './methods/package-origins.ts';
import { defineResource } from '../src/contract/define.ts';
import { enumRename, prefixedEnum, type FieldSpec } from '../src/vocabulary/resource.ts';
import { TIMESTAMPS, TIMESTAMP_ALIASES, UID, UIDP_FILTERS } from './common.ts';

const REVIEW_STATE = prefixedEnum('REVIEW_STATE_', ['UNKNOWN', 'PENDING', 'APPROVED', 'REQUEST_CHANGES', 'REJECTED'], ['UNKNOWN', 'REVIEW_STATE_UNSPECIFIED']);

const FALSE_POSITIVE_TYPE = prefixedEnum('TYPE_', [
  'UNSPECIFIED', 'VULNERABILITY_RECORD_ANALYSIS_CONTESTED', 'COMPONENT_VULNERABILITY_MISMATCH',
  'VULNERABLE_CODE_VERSION_NOT_USED', 'VULNERABLE_CODE_NOT_INCLUDED_IN_PACKAGE', 'VULNERABLE_CODE_NOT_IN_EXECUTION_PATH',
  'VULNERABLE_CODE_CANNOT_BE_CONTROLLED_BY_ADVERSARY', 'INLINE_MITIGATIONS_EXIST',
], ['UNSPECIFIED', 'TYPE_UNSPECIFIED']);

/** Same names on both sides, but v2 lacks v1's COMPONENT_LOCATION_CHANGED (9). */
const EVENT_TYPE_FILTER = enumRename([
  'EVENT_TYPE_FILTER_UNSPECIFIED', 'EVENT_TYPE_FILTER_DETECTION', 'EVENT_TYPE_FILTER_TRUE_POSITIVE_DETERMINATION',
  'EVENT_TYPE_FILTER_FIXED', 'EVENT_TYPE_FILTER_FALSE_POSITIVE_DETERMINATION', 'EVENT_TYPE_FILTER_ANALYSIS_NOT_PLANNED',
  'EVENT_TYPE_FILTER_FIX_NOT_PLANNED', 'EVENT_TYPE_FILTER_PENDING_UPSTREAM_FIX', 'EVENT_TYPE_FILTER_PATCHED',
].map((n) => [n, n] as const), 'EVENT_TYPE_FILTER_UNSPECIFIED');

/** Which event oneof member each event-type filter value means. */
const EVENT_MEMBERS: Readonly<Record<string, string>> = {
  EVENT_TYPE_FILTER_DETECTION: 'detection',
  EVENT_TYPE_FILTER_TRUE_POSITIVE_DETERMINATION: 'truePositiveDetermination',
  EVENT_TYPE_FILTER_FIXED: 'fixed',
  EVENT_TYPE_FILTER_FALSE_POSITIVE_DETERMINATION: 'falsePositiveDetermination',
  EVENT_TYPE_FILTER_ANALYSIS_NOT_PLANNED: 'analysisNotPlanned',
  EVENT_TYPE_FILTER_FIX_NOT_PLANNED: 'fixNotPlanned',
  EVENT_TYPE_FILTER_PENDING_UPSTREAM_FIX: 'pendingUpstreamFix',
  EVENT_TYPE_FILTER_PATCHED: 'patched',
};

/** Only what v1 names otherwise: the contract gives the event's shape, its oneofs and its types. */
const EVENT: Readonly<Record<string, FieldSpec>> = {
  uid: UID,
  createTime: { v1: 'timestamp' },
  reviewState: { v1: 'status', enum: REVIEW_STATE },
  detection: { fields: { scanv1: { fields: { subpackage: { v1: 'subpackageName' }, component: { v1: 'componentName' } } } } },
  falsePositiveDetermination: { fields: { type: { enum: FALSE_POSITIVE_TYPE } } },
};

const anyOf = (field: string, v1: string) => ({ field, op: 'in' as const, v1 });

export default defineResource({
  name: 'advisories',
  resourceType: 'vulnerabilities.chainguard.dev/Advisory',
  service: 'vulnerabilities',
  operations: ['list', 'get'],
  v1: {
    collection: 'advisories',
    idParam: 'id',
    idsParam: 'uidp.ids',
    paging: {
      pageSize: 'pageSize',
      pageToken: 'pageToken',
      orderParam: 'orderBy',
      orderBy: {
        'uid asc': 'ID_ASC', 'uid desc': 'ID_DESC',
        'createTime asc': 'CREATED_AT_ASC', 'createTime desc': 'CREATED_AT_DESC',
        'updateTime asc': 'UPDATED_AT_ASC', 'updateTime desc': 'UPDATED_AT_DESC',
        'deleteTime asc': 'DELETED_AT_ASC', 'deleteTime desc': 'DELETED_AT_DESC',
      },
    },
  },
  fields: {
    uid: UID,
    ...TIMESTAMPS,
    deleteTime: { v1: 'deletedAt' },
    events: { fields: EVENT },
    legacyAdvisoryId: { v1: 'legacyAdvisoryID' },
    // From OSV through the aliases in the real service; the v1 Advisory has no such field.
    severities: { v1: null },
  },
  filters: {
    ...UIDP_FILTERS,
    advisory_ids: anyOf('advisoryId', 'advisoryIds'),
    legacy_advisory_ids: anyOf('legacyAdvisoryId', 'legacyAdvisoryIds'),
    // Left to v1 (no field for the gateway to test): v1 does not apply it when `origin` is set.
    artifact_names: { op: 'in', v1: 'artifactName' },
    artifact_types: anyOf('artifactType', 'artifactType'),
    artifact_architectures: anyOf('artifactArchitecture', 'artifactArchitecture'),
    component_names: anyOf('componentName', 'componentName'),
    component_types: anyOf('componentType', 'componentType'),
    component_locations: anyOf('componentLocation', 'componentLocation'),
    aliases: { op: 'in', v1: 'aliases' },
    origin: { op: 'eq', v1: 'origin' },
    event_review_states: { op: 'in', v1: 'eventStatuses', enum: REVIEW_STATE },
    event_authors: { op: 'in', v1: 'eventAuthor' },
    exclude_event_authors: { op: 'in', v1: 'excludeEventAuthor' },
    event_reviewers: { op: 'in', v1: 'eventReviewer' },
    event_types: { op: 'in', v1: 'eventTypes', enum: EVENT_TYPE_FILTER },
    latest_event_type: { op: 'eq', v1: 'latestEventType', enum: EVENT_TYPE_FILTER },
    // v2 only: a case-insensitive substring of the artifact or component name or an alias.
    query: { op: 'contains', anyOf: ['artifactName', 'componentName', 'aliases'] },
  },
  orderBy: { fields: ['uid', 'createTime', 'updateTime', 'deleteTime'], aliases: { ...TIMESTAMP_ALIASES, deleted_at: 'deleteTime' }, default: 'uid asc' },
  methods: {
    // The advisory service's public feed, beside the advisories (another package, so named by service).
    custom: {
      'SecurityAdvisoryService.ListDocuments': listDocuments,
      'SecurityAdvisoryService.ListVulnerabilityMetadata': listVulnerabilityMetadata,
      'SecurityAdvisoryService.ListResolvedVulnsReports': listResolvedVulnsReports,
    },
  },
  native: {
    keeps: [PACKAGE_ORIGINS_KIND],
    // What v1 applied, over the stored advisory and its events; `origin` through the subpackages the import copied
    // (methods/package-origins.ts), replacing the artifact-name filter as v1's does.
    filters: {
      origin: { path: 'artifactName', match: 'through', kind: PACKAGE_ORIGINS_KIND, field: 'origin', overrides: ['artifact_names'] },
      artifact_names: { path: 'artifactName', match: 'in' },
      event_types: { path: 'events', match: 'member', members: EVENT_MEMBERS },
      // As v1 judges it: the type of the latest approved event.
      latest_event_type: {
        path: 'events', match: 'member', members: EVENT_MEMBERS,
        latest: { by: 'createTime', where: { reviewState: 'REVIEW_STATE_APPROVED' } },
      },
      aliases: { path: 'aliases', match: 'any' },
      event_review_states: { path: 'events.reviewState', match: 'any' },
      event_authors: { path: 'events.author', match: 'any' },
      exclude_event_authors: { path: 'events.author', match: 'none' },
      event_reviewers: { path: 'events.reviewer', match: 'any' },
    },
  },
});
