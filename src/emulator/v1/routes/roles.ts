/** `/iam/v1/roles` (api-surface.md §3). */
import { ROLE, ROLE_FILTER } from '../messages.ts';
import type { Route } from '../router.ts';
import type { EmulatorState, RoleFields } from '../state.ts';
import type { V1Role } from '../state-records.ts';
import { as, collectionRoutes, renderer } from './collection.ts';

const render = renderer<V1Role>(ROLE);

export function roleRoutes(state: EmulatorState): Route[] {
  return collectionRoutes<V1Role>({
    path: '/iam/v1/roles',
    resource: ROLE,
    filter: ROLE_FILTER,
    create: (parent, body) => state.createRole(parent, as<RoleFields>(body)),
    update: (id, body) => state.updateRole(id, as<RoleFields>(body)),
    list: (filter) => state.listRoles(filter).map(render),
    remove: (id) => state.deleteRole(id),
    render,
  });
}
