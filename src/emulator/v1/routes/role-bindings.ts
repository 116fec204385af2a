/**
 * `/iam/v1/rolebindings` (api-surface.md §4, trap 8): create, update and batch
 * answer with the flat RoleBinding, the list with hydrated Binding rows.
 */
import { bindingRow, ROLE_BINDING, ROLE_BINDING_FILTER } from '../messages.ts';
import { decodeMessage, message, field, parseJson, ProtoJsonError, type Message, type MessageDef } from '../protojson.ts';
import type { Route } from '../router.ts';
import type { EmulatorState, RoleBindingFields } from '../state.ts';
import type { V1BindingRow, V1RoleBinding } from '../state-records.ts';
import { as, collectionRoutes, renderer } from './collection.ts';

const renderFlat = renderer<V1RoleBinding>(ROLE_BINDING);

const ROLE_BINDING_BATCH = message('chainguard.platform.iam.RoleBindingBatch', [
  field('role_bindings', ROLE_BINDING, { card: 'repeated' }),
]);

export function roleBindingRoutes(state: EmulatorState, groupMessage: MessageDef): Route[] {
  const renderRow = renderer<V1BindingRow>(bindingRow(groupMessage));
  const crud = collectionRoutes<V1RoleBinding>({
    path: '/iam/v1/rolebindings',
    resource: ROLE_BINDING,
    filter: ROLE_BINDING_FILTER,
    create: (parent, body) => state.createRoleBinding(parent, as<RoleBindingFields>(body)),
    update: (id, body) => state.updateRoleBinding(id, as<RoleBindingFields>(body)),
    list: (filter) => state.listRoleBindings(filter).map(renderRow),
    remove: (id) => state.deleteRoleBinding(id),
    render: renderFlat,
  });
  // `body: "role_bindings"` on a repeated field: the HTTP body is a bare JSON array.
  const batch: Route<{ parent: string; bindings: Message[] }> = {
    method: 'POST',
    path: '/iam/v1/rolebindings/batch',
    capture: true,
    decode: ({ capture, body }) => {
      const parsed = parseJson(body);
      const items = Array.isArray(parsed) ? parsed : body.trim() === '' ? [] : undefined;
      if (!items) throw new ProtoJsonError('invalid value for repeated field role_bindings: expected array');
      return { parent: capture, bindings: items.map((item, i) => decodeMessage(ROLE_BINDING, item, `role_bindings[${i}]`)) };
    },
    run: ({ parent, bindings }) => {
      const created = state.createRoleBindings(parent, bindings.map((b) => as<RoleBindingFields>(b)));
      return renderer<{ roleBindings: V1RoleBinding[] }>(ROLE_BINDING_BATCH)({ roleBindings: created });
    },
  };
  // Declared after create so it wins `rolebindings/batch/…`, as in the proto.
  return [...crud, batch as Route];
}
