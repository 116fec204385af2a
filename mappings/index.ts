/** Every resource the gateway serves. Adding a resource: a mapping file here, plus emulator support. */
import type { ResourceMapping } from '../src/vocabulary/resource.ts';
import accountAssociations from './account-associations.ts';
import advisories from './advisories.ts';
import externalGroupRoleMappings from './external-group-role-mappings.ts';
import groupInvites from './group-invites.ts';
import groups from './groups.ts';
import identities from './identities.ts';
import identityProviders from './identity-providers.ts';
import overlayBindings from './overlay-bindings.ts';
import overlays from './overlays.ts';
import repoReadmes from './repo-readmes.ts';
import repos from './repos.ts';
import roleBindings from './role-bindings.ts';
import roles from './roles.ts';
import subscriptions from './subscriptions.ts';
import tags from './tags.ts';

export { ACCESS } from './access.ts';

import { FEED_FROM_V1 } from './methods/advisory-feed.ts';
import { IMAGE_COPY } from './methods/images.ts';
import { originCopy } from './methods/package-origins.ts';
import { listCopy, type V1Copy } from './methods/store-rows.ts';

export const MAPPINGS: readonly ResourceMapping[] = [
  groups, identities, roles, roleBindings, identityProviders, externalGroupRoleMappings, accountAssociations, groupInvites, repos, repoReadmes, tags, advisories, overlays, overlayBindings, subscriptions,
];

/**
 * What native mode holds only as copies of v1's data, made by `npm run import` after the resources
 * above (an image's row needs its repo's tags, a subpackage's the advisories): v1's public feed, image
 * manifests, and which package is whose subpackage (read through v1's `origin` filter, a page at a time).
 */
export const COPIES_FROM_V1: readonly V1Copy[] = [
  ...FEED_FROM_V1.map(listCopy),
  IMAGE_COPY,
  originCopy({ pageSize: advisories.v1.paging!.pageSize, pageToken: advisories.v1.paging!.pageToken, size: 100 }),
];
