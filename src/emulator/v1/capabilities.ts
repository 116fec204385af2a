/**
 * The capability vocabulary a v1 backend understands: friendly names only
 * ("groups.list"), taken from the shared SDK-derived table, and the managed
 * roles expressed in that vocabulary.
 */
import { CAPABILITIES } from '../../../mappings/capabilities.ts';
import { BUILTIN_ROLES } from '../../../mappings/builtin-roles.ts';

const V1_BY_V2 = new Map(CAPABILITIES.map((c) => [c.v2, c.v1]));

export const V1_CAPABILITY_NAMES: ReadonlySet<string> = new Set(CAPABILITIES.map((c) => c.v1));

export interface ManagedRole {
  name: string;
  description: string;
  capabilities: string[];
}

export const MANAGED_ROLES: readonly ManagedRole[] = BUILTIN_ROLES.map((role) => ({
  name: role.name,
  description: role.description,
  capabilities: role.capabilities.map((cap) => {
    const v1 = V1_BY_V2.get(cap);
    if (!v1) throw new Error(`managed role ${role.name}: capability ${cap} is missing from the capability table`);
    return v1;
  }),
}));
