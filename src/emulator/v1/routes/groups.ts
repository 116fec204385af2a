/** `/iam/v1/groups` (api-surface.md §1). */
import { eligibleDomain, callerKey } from '../caller.ts';
import { notFound } from '../errors.ts';
import { EMPTY_REQUEST, GROUP, GROUP_FILTER, REQUEST_GROUP_ACCESS_REQUEST } from '../messages.ts';
import { decodeBody, decodeQuery, type Message, type MessageDef } from '../protojson.ts';
import type { Route } from '../router.ts';
import type { EmulatorState, GroupFields } from '../state.ts';
import type { V1Group } from '../state-records.ts';
import { as, collectionRoutes, renderer } from './collection.ts';

/** `groupMessage` is the Group shape emitted (with or without timestamps). */
export function groupRoutes(state: EmulatorState, groupMessage: MessageDef): Route[] {
  const render = renderer<V1Group>(groupMessage);
  // The three email-domain flows answer alike for every failing gate, as v1 documents (caller.ts).
  const orgOf = (token: string): V1Group => {
    const domain = eligibleDomain(token);
    const group = domain === undefined ? undefined : state.verifiedOrgNamed(domain);
    if (!group) throw notFound('group not found');
    return group;
  };
  const lookupGroup: Route<Message> = {
    method: 'GET',
    path: '/iam/v1/groups',
    verb: 'lookupGroup',
    decode: ({ query }) => decodeQuery(EMPTY_REQUEST, query),
    run: (_request, caller) => ({ group: render(orgOf(caller.token)) }),
  };
  const checkEligibility: Route<Message> = {
    method: 'GET',
    path: '/iam/v1/groups',
    verb: 'checkEligibility',
    decode: ({ query }) => decodeQuery(EMPTY_REQUEST, query),
    run: (_request, caller) => ({ eligible: eligibleDomain(caller.token) !== undefined }),
  };
  const requestGroupAccess: Route<Message> = {
    method: 'POST',
    path: '/iam/v1/groups',
    capture: true,
    verb: 'requestGroupAccess',
    // Body `*`: the path's group_id fills the message's field.
    decode: ({ capture, body }) => ({ ...decodeBody(REQUEST_GROUP_ACCESS_REQUEST, body), groupId: capture }),
    run: (request, caller) => {
      const groupId = String((request as { groupId?: string }).groupId ?? '');
      if (groupId === '' || orgOf(caller.token).id !== groupId) throw notFound('group not found');
      state.requestGroupAccess(groupId, callerKey(caller.token));
      return {};
    },
  };
  const crud = collectionRoutes<V1Group>({
    path: '/iam/v1/groups',
    resource: GROUP,
    filter: GROUP_FILTER,
    // `{parent=**}` may be empty: that creates a root organisation.
    create: (parent, body) => state.createGroup(parent === '' ? null : parent, as<GroupFields>(body)),
    update: (id, body) => state.updateGroup(id, as<GroupFields>(body)),
    list: (filter) => state.listGroups(filter).map(renderer<V1Group>(groupMessage)),
    remove: (id) => state.deleteGroup(id),
    render,
  });
  // Declared after the collection's routes: grpc-gateway lets the last-declared pattern win.
  return [...crud, lookupGroup, checkEligibility, requestGroupAccess] as Route[];
}
