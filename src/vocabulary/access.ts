/**
 * How native mode's authorization finds who may do what in the store, and
 * what it writes when a caller creates a root organisation: declared with the
 * mappings (mappings/access.ts), so that policy/ names no resource.
 */
import type { ResourceMapping } from './resource.ts';

export interface AccessModel {
  /** The resource that binds an identity to a role at a group (the row's parent), and its fields holding each uid. */
  readonly bindings: { readonly mapping: ResourceMapping; readonly identity: string; readonly role: string };
  /** The resource whose rows are roles, and its field listing a role's capability enum names. */
  readonly roles: { readonly mapping: ResourceMapping; readonly capabilities: string };
  /** When a caller creates a root organisation: the role its creator is bound to there, as a binding row written then. */
  readonly onRootCreated: { readonly creatorRole: string };
}
