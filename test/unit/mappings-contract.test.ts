/**
 * Each fact is declared once: the contract says what v2 is (types, lists,
 * oneofs, field behaviours, field order), so a mapping may only say how v1
 * differs and the gateway's own rules. This fails when a mapping restates a
 * contract fact, or names a field the contract does not have.
 */
import { describe, expect, it } from 'vitest';
import { resourceMessageName } from '../../src/vocabulary/resource.ts';
import { contractFields } from '../../src/contract/fields.ts';
import { contract } from '../../src/contract/registry.ts';
import type { FieldSpec } from '../../src/vocabulary/resource.ts';
import { MAPPINGS } from '../../mappings/index.ts';

const CONTRACT_FACTS = ['type', 'repeated', 'oneof', 'optional', 'outputOnly', 'inputOnly', 'immutable'] as const;

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
      if (own[fact] !== undefined && own[fact] === (base[fact] ?? (fact === 'type' ? (base.fields ? 'message' : undefined) : undefined))) {
        found.push(`${where}.${key}: restates ${fact} = ${String(own[fact])}`);
      }
    }
    if (own.fields && base.fields) found.push(...restated(`${where}.${key}`, base.fields, own.fields));
  }
  return found;
}

describe('mappings against the contract', () => {
  for (const mapping of MAPPINGS) {
    it(`${mapping.name} says only what v1 differs in and the gateway's rules`, () => {
      const message = contract.getMessage(resourceMessageName(mapping));
      expect(message, `${resourceMessageName(mapping)} is in the contract`).toBeDefined();
      expect(restated(mapping.name, contractFields(message!), mapping.declaredFields ?? {})).toEqual([]);
    });
  }
});
