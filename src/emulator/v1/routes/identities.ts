/** `/iam/v1/identities` and `/iam/v1/identities/lookup` (api-surface.md §2). */
import { IDENTITY, IDENTITY_FILTER, LOOKUP_REQUEST } from '../messages.ts';
import { decodeQuery, type Message } from '../protojson.ts';
import type { Route } from '../router.ts';
import type { EmulatorState, IdentityFields } from '../state.ts';
import type { V1Identity } from '../state-records.ts';
import { as, collectionRoutes, renderer } from './collection.ts';

const render = renderer<V1Identity>(IDENTITY);

export function identityRoutes(state: EmulatorState): Route[] {
  const lookup: Route<Message> = {
    method: 'GET',
    path: '/iam/v1/identities/lookup',
    decode: ({ query }) => decodeQuery(LOOKUP_REQUEST, query),
    run: (request) => {
      const { issuer = '', subject = '' } = as<{ issuer?: string; subject?: string }>(request);
      return render(state.lookupIdentity(issuer, subject));
    },
  };
  const crud = collectionRoutes<V1Identity>({
    path: '/iam/v1/identities',
    resource: IDENTITY,
    filter: IDENTITY_FILTER,
    create: (parent, body) => state.createIdentity(parent, as<IdentityFields>(body)),
    update: (id, body) => state.updateIdentity(id, as<IdentityFields>(body)),
    list: (filter) => state.listIdentities(filter).map(render),
    remove: (id) => state.deleteIdentity(id),
    render,
  });
  return [...crud, lookup as Route];
}
