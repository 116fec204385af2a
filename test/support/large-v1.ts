/**
 * A large v1 organisation in the emulator's state: `groups` groups in one
 * organisation (nested two deep), an identity in every tenth with an owner
 * binding to it — the shape of a big customer, for the import's tests and
 * benchmark. Made through the emulator's own state, as v1 would hold it.
 */
import type { EmulatorState } from '../../src/emulator/v1/index.ts';

export interface LargeV1 {
  org: string;
  groups: number;
  identities: number;
  roleBindings: number;
}

export function fillLargeV1(state: EmulatorState, groups: number): LargeV1 {
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
