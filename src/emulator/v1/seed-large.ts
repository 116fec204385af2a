/**
 * A large organisation (`--seed large --groups N`): N groups in one
 * organisation, nested two deep in teams of a hundred, an identity in every
 * tenth group with a viewer binding to it — the shape of a big customer, for
 * trying and measuring what reads a whole v1 (an import) at scale.
 */
import type { EmulatorState } from './state.ts';

export interface LargeOrg {
  org: string;
  groups: number;
  identities: number;
  roleBindings: number;
}

export function seedLarge(state: EmulatorState, groups: number): LargeOrg {
  const org = state.createGroup(null, { name: 'large-org', description: 'a large organisation' }).id;
  let parent = org;
  let identities = 0;
  for (let i = 1; i < groups; i++) {
    // Every hundredth group starts a team the next ninety-nine sit under.
    const group = state.createGroup(i % 100 === 1 ? org : parent, { name: `group-${i}` }).id;
    if (i % 100 === 1) parent = group;
    if (i % 10 === 0) {
      const identity = state.createIdentity(group, {
        name: `bot-${i}`,
        claimMatch: { issuer: 'https://issuer.example', subject: `bot-${i}` },
      }).id;
      state.createRoleBinding(group, { identity, role: state.builtinRoles.viewer });
      identities++;
    }
  }
  return { org, groups, identities, roleBindings: identities };
}
