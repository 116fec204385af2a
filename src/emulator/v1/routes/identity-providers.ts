/** `/iam/v1/identityProviders` (api-surface.md §5); the SCIM `:verb` methods are not emulated. */
import { IDENTITY_PROVIDER, IDENTITY_PROVIDER_FILTER } from '../messages.ts';
import type { Route } from '../router.ts';
import type { EmulatorState } from '../state.ts';
import type { IdentityProviderFields, V1IdentityProvider } from '../stores/identity-providers.ts';
import { as, collectionRoutes, renderer } from './collection.ts';

const render = renderer<V1IdentityProvider>(IDENTITY_PROVIDER);

export function identityProviderRoutes(state: EmulatorState): Route[] {
  return collectionRoutes<V1IdentityProvider>({
    path: '/iam/v1/identityProviders',
    resource: IDENTITY_PROVIDER,
    filter: IDENTITY_PROVIDER_FILTER,
    create: (parent, body) => state.createIdentityProvider(parent, as<IdentityProviderFields>(body)),
    update: (id, body) => state.updateIdentityProvider(id, as<IdentityProviderFields>(body)),
    list: (filter) => state.listIdentityProviders(filter).map(render),
    remove: (id) => state.deleteIdentityProvider(id),
    render,
  });
}
