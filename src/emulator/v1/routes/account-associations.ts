/**
 * `/iam/v1/account_associations` (api-surface.md §6): create and update take
 * the whole AccountAssociations message as body (`body: "*"`) and every
 * write is addressed by `{group=**}`. `{group=**}:check` reports whether the
 * group's association with a cloud provider works.
 */
import { invalidArgument, notFound } from '../errors.ts';
import { ACCOUNT_ASSOCIATIONS, ACCOUNT_ASSOCIATIONS_FILTER, ACCOUNT_CHECK_REQUEST, ACCOUNT_STATUS } from '../messages.ts';
import { decodeBody, renderMessage, type Message } from '../protojson.ts';
import type { Route } from '../router.ts';
import type { EmulatorState } from '../state.ts';
import type { AccountAssociationsFields, AccountAssociationsFilter, V1AccountAssociations } from '../stores/account-associations.ts';
import { as, collectionRoutes, renderer } from './collection.ts';

const render = renderer<V1AccountAssociations>(ACCOUNT_ASSOCIATIONS);

/** The association's key for each provider a check can name. */
const PROVIDER_KEY: Readonly<Record<string, 'google' | 'amazon' | 'azure'>> = { GOOGLE: 'google', AMAZON: 'amazon', AZURE: 'azure' };

export function accountAssociationRoutes(state: EmulatorState): Route[] {
  /**
   * Decision: the real check is a live token exchange with the provider, which
   * this emulator cannot make. It answers Ready when the group's association
   * configures that provider, NotReady (with reason NOT_CONFIGURED) when it
   * does not; a group without associations is NOT_FOUND, an UNKNOWN type INVALID_ARGUMENT.
   */
  const check: Route<Message> = {
    method: 'POST',
    path: '/iam/v1/account_associations',
    capture: true,
    verb: 'check',
    decode: ({ capture, body }) => ({ ...decodeBody(ACCOUNT_CHECK_REQUEST, body), group: capture }),
    run: (request) => {
      const { group, accountType = 'UNKNOWN' } = as<{ group: string; accountType?: string }>(request);
      const key = PROVIDER_KEY[accountType];
      if (!key) throw invalidArgument('account_type: must be GOOGLE, AMAZON or AZURE');
      const [association] = state.listAccountAssociations({ group });
      if (!association) throw notFound(`account associations of group ${JSON.stringify(group)} not found`);
      const configured = association[key] !== undefined;
      return renderMessage(ACCOUNT_STATUS, configured
        ? { ready: 'Ready', reason: 'OK', message: `the ${key} account association is configured` }
        : { ready: 'NotReady', reason: 'NOT_CONFIGURED', message: `group ${group} has no ${key} account association` });
    },
  };
  const crud = collectionRoutes<V1AccountAssociations, AccountAssociationsFilter>({
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
  return [...crud, check as Route];
}
