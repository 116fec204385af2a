/**
 * `/iam/v1/identityProviders` (api-surface.md §5), and the four SCIM
 * lifecycle verbs on `{identity_provider_id=**}:…` (body `*`), whose state
 * shows in the provider's `scim` block (stores/scim.ts).
 */
import { notFound } from '../errors.ts';
import { IDENTITY_PROVIDER, IDENTITY_PROVIDER_FILTER, SCIM_REQUEST } from '../messages.ts';
import { decodeBody, type Message } from '../protojson.ts';
import type { ScimRequest } from '../stores/scim.ts';
import type { Route } from '../router.ts';
import type { EmulatorState } from '../state.ts';
import type { IdentityProviderFields, V1IdentityProvider } from '../stores/identity-providers.ts';
import { as, collectionRoutes, renderer } from './collection.ts';

const render = renderer<V1IdentityProvider>(IDENTITY_PROVIDER);

export function identityProviderRoutes(state: EmulatorState): Route[] {
  const withScim = (idp: V1IdentityProvider) => render({ ...idp, ...(state.scim.view(idp.id) ? { scim: state.scim.view(idp.id) } : {}) } as V1IdentityProvider);
  const verb = (name: string, run: (idp: string, request: ScimRequest) => unknown): Route => {
    const route: Route<Message> = {
      method: 'POST',
      path: '/iam/v1/identityProviders',
      capture: true,
      verb: name,
      decode: ({ capture, body }) => ({ ...decodeBody(SCIM_REQUEST, body), identityProviderId: capture }),
      run: (request) => {
        const idp = String(request.identityProviderId ?? '');
        if (!idp || state.listIdentityProviders({ id: idp }).length === 0) throw notFound(`identity provider ${JSON.stringify(idp)} not found`);
        return run(idp, as<ScimRequest>(request));
      },
    };
    return route as Route;
  };
  const crud = collectionRoutes<V1IdentityProvider>({
    path: '/iam/v1/identityProviders',
    resource: IDENTITY_PROVIDER,
    filter: IDENTITY_PROVIDER_FILTER,
    create: (parent, body) => state.createIdentityProvider(parent, as<IdentityProviderFields>(body)),
    update: (id, body) => state.updateIdentityProvider(id, as<IdentityProviderFields>(body)),
    list: (filter) => state.listIdentityProviders(filter).map(withScim),
    remove: (id) => state.deleteIdentityProvider(id),
    render,
  });
  return [
    ...crud,
    verb('generateScimToken', (idp, request) => state.scim.generate(idp, request)),
    verb('regenerateScimToken', (idp, request) => state.scim.regenerate(idp, request)),
    verb('revokeScimToken', (idp) => state.scim.revoke(idp)),
    verb('setScimEnabled', (idp, request) => state.scim.setEnabled(idp, request, state.ownerBindingsIn(idp.split('/')[0]!))),
  ];
}
