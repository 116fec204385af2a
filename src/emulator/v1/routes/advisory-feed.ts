/**
 * `/advisory/v1/documents` (DocumentFilter `id`, `cves` → `{items}`) and
 * `/advisory/v1/metadata` (VulnerabilityMetadataFilter → `{items,
 * nextPageToken, totalCount, skipped}`): the public advisory feed.
 * `/advisory/v1/images/resolved_vulns` is not emulated: its only selector,
 * `image_refs`, is a repeated message, which grpc-gateway cannot read from a
 * query string, so no REST client (the gateway included) can ask it anything.
 * v1 marks both Lists `disabled` (no authentication): they answer callers
 * without a token.
 */
import { DOCUMENT_FILTER, METADATA_FILTER } from '../messages.ts';
import type { Route } from '../router.ts';
import type { EmulatorState } from '../state.ts';
import type { MetadataQuery } from '../stores/advisory-feed.ts';
import { as, listRoute } from './collection.ts';

const PUBLIC = { public: true };

export function advisoryFeedRoutes(state: EmulatorState): Route[] {
  return [
    listRoute('/advisory/v1/documents', DOCUMENT_FILTER, (filter) => {
      const { id, cves = [] } = as<{ id?: string; cves?: string[] }>(filter);
      return { items: state.advisoryFeed.documents(id, cves) };
    }, PUBLIC),
    listRoute('/advisory/v1/metadata', METADATA_FILTER, (filter) => state.advisoryFeed.metadata(as<MetadataQuery>(filter)), PUBLIC),
  ];
}
