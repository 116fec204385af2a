/**
 * `/iam/v1/group_invites` (api-surface.md §7): create takes a
 * GroupInviteRequest (`body: "*"`) and answers with a GroupInvite, the list
 * answers with StoredGroupInvite rows; there is no update (PUT is 405).
 */
import { GROUP_INVITE, GROUP_INVITE_FILTER, GROUP_INVITE_REQUEST, STORED_GROUP_INVITE } from '../messages.ts';
import type { Route } from '../router.ts';
import type { EmulatorState } from '../state.ts';
import type { GroupInviteFields, GroupInviteFilter, V1GroupInvite, V1StoredGroupInvite } from '../stores/group-invites.ts';
import { as, createRoute, deleteRoute, listRoute, renderer } from './collection.ts';

const PATH = '/iam/v1/group_invites';
const renderInvite = renderer<V1GroupInvite>(GROUP_INVITE);
const renderRow = renderer<V1StoredGroupInvite>(STORED_GROUP_INVITE);

export function groupInviteRoutes(state: EmulatorState): Route[] {
  return [
    createRoute(PATH, GROUP_INVITE_REQUEST, (group, body) => renderInvite(state.createGroupInvite(group, as<GroupInviteFields>(body)))),
    listRoute(PATH, GROUP_INVITE_FILTER, (filter) => ({ items: state.listGroupInvites(as<GroupInviteFilter>(filter)).map(renderRow) })),
    deleteRoute(PATH, (id) => state.deleteGroupInvite(id)),
  ];
}
