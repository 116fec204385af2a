/**
 * `/iam/v1/account_associations` (api-surface.md §6): create and update take
 * the whole AccountAssociations message as body (`body: "*"`) and every
 * write is addressed by `{group=**}`; `:check` is not emulated.
 */
import { ACCOUNT_ASSOCIATIONS, ACCOUNT_ASSOCIATIONS_FILTER } from '../messages.ts';
import type { Route } from '../router.ts';
import type { EmulatorState } from '../state.ts';
import type { AccountAssociationsFields, AccountAssociationsFilter, V1AccountAssociations } from '../stores/account-associations.ts';
import { as, collectionRoutes, renderer } from './collection.ts';

const render = renderer<V1AccountAssociations>(ACCOUNT_ASSOCIATIONS);

export function accountAssociationRoutes(state: EmulatorState): Route[] {
  return collectionRoutes<V1AccountAssociations, AccountAssociationsFilter>({
    path: '/iam/v1/account_associations',
    resource: ACCOUNT_ASSOCIATIONS,
    filter: ACCOUNT_ASSOCIATIONS_FILTER,
    key: 'group',
    // The path's group wins over any `group` in the body.
    create: (group, body) => state.createAccountAssociations(group, as<AccountAssociationsFields>(body)),
    update: (group, body) => state.updateAccountAssociations(group, as<AccountAssociationsFields>(body)),
    list: (filter) => state.listAccountAssociations(filter).map(render),
    remove: (group) => state.deleteAccountAssociations(group),
    render,
  });
}
