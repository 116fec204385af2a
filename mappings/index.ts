/** Every resource the gateway serves. Adding a resource: a mapping file here, plus emulator support. */
import type { ResourceMapping } from '../src/engine/mapping.ts';
import groups from './groups.ts';
import identities from './identities.ts';
import repos from './repos.ts';
import roleBindings from './role-bindings.ts';
import roles from './roles.ts';

export const MAPPINGS: readonly ResourceMapping[] = [groups, identities, roles, roleBindings, repos];
