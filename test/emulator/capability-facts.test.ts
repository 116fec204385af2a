/**
 * The gateway's capability tables (mappings/) and the emulator's v1 facts are
 * written apart; this is where they must agree. A wrong entry in either —
 * a v2 name paired with the wrong v1 name, a capability missing from a managed
 * role — fails here rather than passing unseen through both.
 */
import { describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../mappings/capabilities.ts';
import { BUILTIN_ROLES } from '../../mappings/builtin-roles.ts';
import { V1_CAPABILITIES, V1_MANAGED_ROLE_CAPABILITIES } from '../../src/emulator/v1/v1-capabilities.ts';
import { readFileSync } from 'node:fs';

describe('capability facts: gateway and emulator', () => {
  it('know the same v1 friendly names', () => {
    expect(new Set(CAPABILITIES.map((c) => c.v1))).toEqual(new Set(V1_CAPABILITIES));
  });

  it.each(['viewer', 'editor', 'owner'] as const)('give the managed role %s the same capabilities', (name) => {
    const v1ByV2 = new Map(CAPABILITIES.map((c) => [c.v2, c.v1]));
    const gateway = BUILTIN_ROLES.find((r) => r.name === name)!.capabilities.map((cap) => v1ByV2.get(cap));
    expect(new Set(gateway)).toEqual(new Set(V1_MANAGED_ROLE_CAPABILITIES[name]));
  });

  it('the emulator imports nothing from the gateway', () => {
    for (const file of ['capabilities.ts', 'v1-capabilities.ts']) {
      const text = readFileSync(new URL(`../../src/emulator/v1/${file}`, import.meta.url), 'utf8');
      expect(text).not.toMatch(/from ['"][./]*mappings\//);
    }
  });
});
