/**
 * `/iam/v1/externalGroupRoleMappings` (proto/platform/iam/v1/
 * external_group_role_mappings.platform.proto): Create under
 * `{parent_id=**}` with the `mapping` as body, a real Get at `{uid=**}`,
 * List by `uidp` and `identityProviderUidp`, Delete at `{id=**}`, and
 * `:batchDelete` with `{parentId, ids}` (body `*`) → `{parentId, items}`.
 * No update: every field is immutable.
 */
import { BATCH_DELETE_MAPPINGS_REQUEST, EXTERNAL_GROUP_ROLE_MAPPING, EXTERNAL_GROUP_ROLE_MAPPING_FILTER } from '../messages.ts';
import { decodeBody, type Message } from '../protojson.ts';
import type { Route } from '../router.ts';
import type { EmulatorState } from '../state.ts';
import type { ExternalGroupRoleMappingFields, ExternalGroupRoleMappingFilter, V1ExternalGroupRoleMapping } from '../stores/external-group-role-mappings.ts';
import { as, createRoute, deleteRoute, listRoute, renderer } from './collection.ts';

const PATH = '/iam/v1/externalGroupRoleMappings';
const render = renderer<V1ExternalGroupRoleMapping>(EXTERNAL_GROUP_ROLE_MAPPING);

export function externalGroupRoleMappingRoutes(state: EmulatorState): Route[] {
  const mappings = state.externalGroupRoleMappings;
  const get: Route<string> = { method: 'GET', path: PATH, capture: true, decode: ({ capture }) => capture, run: (uid) => render(mappings.get(uid)) };
  const batchDelete: Route<Message> = {
    method: 'POST',
    path: PATH,
    verb: 'batchDelete',
    decode: ({ body }) => decodeBody(BATCH_DELETE_MAPPINGS_REQUEST, body),
    run: (request) => {
      const { parentId = '', ids = [] } = as<{ parentId?: string; ids?: string[] }>(request);
      return { parentId, items: mappings.batchDelete(parentId, ids).map(render) };
    },
  };
  return [
    createRoute(PATH, EXTERNAL_GROUP_ROLE_MAPPING, (parent, body) => render(state.createExternalGroupRoleMapping(parent, as<ExternalGroupRoleMappingFields>(body)))),
    get as Route,
    // A literal GET path beats the `{uid=**}` capture: declared after it, as grpc-gateway lets the last-declared win.
    listRoute(PATH, EXTERNAL_GROUP_ROLE_MAPPING_FILTER, (filter) => ({ items: mappings.list(as<ExternalGroupRoleMappingFilter>(filter)).map(render) })),
    deleteRoute(PATH, (id) => mappings.delete(id)),
    batchDelete as Route,
  ];
}
