/**
 * Each fact is declared once: the contract says what v2 is (types, lists,
 * oneofs, field behaviours, field order), so a mapping may only say how v1
 * differs and the gateway's own rules. This fails when a mapping restates a
 * contract fact, under its own name or another (a field's oneof renamed, a
 * REQUIRED field made mandatory by a validation rule), or names a field the
 * contract does not have.
 */
import { describe, expect, it } from 'vitest';
import { resourceMessageName } from '../../src/vocabulary/resource.ts';
import { contractFields } from '../../src/contract/fields.ts';
import { contract } from '../../src/contract/registry.ts';
import type { FieldSpec, ResourceMapping } from '../../src/vocabulary/resource.ts';
import { MAPPINGS } from '../../mappings/index.ts';
import { getPath } from '../../src/vocabulary/json.ts';

const CONTRACT_FACTS = ['type', 'repeated', 'oneof', 'optional', 'outputOnly', 'inputOnly', 'immutable', 'required'] as const;
/** Facts a mapping may not declare at all where the contract states them, whatever the value: a oneof under another name is the same oneof restated. */
const NOT_REDECLARED = new Set<string>(['oneof', 'required']);

function restated(where: string, contractSide: Readonly<Record<string, FieldSpec>>, declared: Readonly<Record<string, FieldSpec>>): string[] {
  const found: string[] = [];
  for (const [key, own] of Object.entries(declared)) {
    const base = contractSide[key];
    if (!base) {
      found.push(`${where}.${key}: not a field of the contract`);
      continue;
    }
    const declaresNothing = Object.keys(own).length === 0 || (Object.keys(own).join() === 'fields' && Object.keys(own.fields!).length === 0);
    if (declaresNothing) found.push(`${where}.${key}: declares nothing`);
    for (const fact of CONTRACT_FACTS) {
      const contractSays = base[fact] ?? (fact === 'type' ? (base.fields ? 'message' : undefined) : undefined);
      if (own[fact] !== undefined && (own[fact] === contractSays || (NOT_REDECLARED.has(fact) && contractSays !== undefined))) {
        found.push(`${where}.${key}: restates ${fact} = ${String(contractSays)}${own[fact] === contractSays ? '' : ` as ${String(own[fact])}`}`);
      }
    }
    if (own.fields && base.fields) found.push(...restated(`${where}.${key}`, base.fields, own.fields));
  }
  return found;
}

/** The paths of the contract's REQUIRED fields, with a value that leaves each unset (its enclosing messages set). */
function requiredProbes(fields: Readonly<Record<string, FieldSpec>>, prefix: string[] = []): { path: string; unset: Record<string, unknown>[] }[] {
  const probes: { path: string; unset: Record<string, unknown>[] }[] = [];
  const inside = (value: unknown): Record<string, unknown> => prefix.reduceRight<Record<string, unknown>>((inner, key) => ({ [key]: inner }), value as Record<string, unknown>);
  for (const [key, spec] of Object.entries(fields)) {
    if (spec.outputOnly) continue;
    if (spec.required) probes.push({ path: [...prefix, key].join('.'), unset: [inside({}), inside({ [key]: '' })] });
    if (spec.fields && !spec.repeated) probes.push(...requiredProbes(spec.fields, [...prefix, key]));
  }
  return probes;
}

/** REQUIRED fields a mapping's validation rules make mandatory themselves, which only the contract may say. */
function requiredRestated(mapping: ResourceMapping): string[] {
  if (!mapping.validate) return [];
  const found: string[] = [];
  for (const { path, unset } of requiredProbes(mapping.fields)) {
    for (const value of unset) {
      const result = mapping.validate.safeParse(value);
      const issue = result.success ? undefined : result.error.issues.find((i) => i.path.join('.') === path && /required/i.test(i.message) || (i.path.join('.') === path && getPath(value, path) === undefined));
      if (issue) found.push(`${mapping.name}.${path}: a rule says "${issue.message}" of a field the contract marks REQUIRED`);
    }
  }
  return [...new Set(found)];
}

describe('mappings against the contract', () => {
  for (const mapping of MAPPINGS) {
    it(`${mapping.name} says only what v1 differs in and the gateway's rules`, () => {
      const message = contract.getMessage(resourceMessageName(mapping));
      expect(message, `${resourceMessageName(mapping)} is in the contract`).toBeDefined();
      expect(restated(mapping.name, contractFields(message!), mapping.declaredFields ?? {})).toEqual([]);
      expect(requiredRestated(mapping)).toEqual([]);
    });
  }
});
