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
import tags from './tags.ts';

export const MAPPINGS: readonly ResourceMapping[] = [
  groups, identities, roles, roleBindings, identityProviders, externalGroupRoleMappings, accountAssociations, groupInvites, repos, repoReadmes, tags, advisories, overlays, overlayBindings,
];
