/** `/iam/v1/groups` (api-surface.md §1). */
import { GROUP, GROUP_FILTER } from '../messages.ts';
import type { MessageDef } from '../protojson.ts';
import type { Route } from '../router.ts';
import type { EmulatorState, GroupFields, V1Group } from '../state.ts';
import { as, collectionRoutes, renderer } from './collection.ts';

/** `groupMessage` is the Group shape emitted (with or without timestamps). */
export function groupRoutes(state: EmulatorState, groupMessage: MessageDef): Route[] {
  return collectionRoutes<V1Group>({
    path: '/iam/v1/groups',
    resource: GROUP,
    filter: GROUP_FILTER,
    // `{parent=**}` may be empty: that creates a root organisation.
    create: (parent, body) => state.createGroup(parent === '' ? null : parent, as<GroupFields>(body)),
    update: (id, body) => state.updateGroup(id, as<GroupFields>(body)),
    list: (filter) => state.listGroups(filter).map(renderer<V1Group>(groupMessage)),
    remove: (id) => state.deleteGroup(id),
    render: renderer<V1Group>(groupMessage),
  });
}
