/**
 * Each method's scope is read where the request holds it: a custom method's route variable (CreateOverlayBinding's
 * `parent`) is a field of its request message like any other, not a standard method's target.
 */
import { expect, it } from 'vitest';
import { bindContract, jsonPath } from '../../src/contract/bindings.ts';
import { apiServices } from '../../src/contract/registry.ts';
import { MappingRegistry } from '../../src/port/registry.ts';
import type { Operation } from '../../src/port/operation.ts';
import { methodRule, scopePath } from '../../src/policy/method-rules.ts';
import { setPath } from '../../src/vocabulary/json.ts';
import { MAPPINGS } from '../../mappings/index.ts';

it("reads every scoped custom method's scope from its request, its route's variable included", () => {
  const bindings = bindContract(apiServices(), new MappingRegistry(MAPPINGS).all()).filter((b) => b.kind === 'custom' && scopePath(b.method.input));
  const routed = bindings.filter((b) => scopePath(b.method.input) === b.target).map((b) => b.method.name);
  expect(routed).toContain('CreateOverlayBinding');
  for (const binding of bindings) {
    const request = {};
    setPath(request, jsonPath(binding.method.input, scopePath(binding.method.input)!), 'org/team');
    const op = { kind: 'custom', mapping: binding.mapping, method: binding.method, custom: binding.custom!, request } as Operation;
    expect(methodRule(binding).scopeOf(op), binding.method.name).toBe('org/team');
  }
});
