/**
 * Where a mapping file meets the contract: `defineResource` lays the
 * mapping's own declarations over the fields the contract declares.
 */
import { contractFields, withContract } from './fields.ts';
import { contract } from './registry.ts';
import { resourceMessageName, type ResourceMapping } from '../vocabulary/resource.ts';

/**
 * A mapping as the engine reads it: its resource's fields as the contract
 * declares them (types, repetition, oneofs, field behaviours, in the
 * contract's order), with the mapping's own declarations laid over them.
 * A resource the contract does not know (a test's made-up one) keeps only
 * what it declares.
 */
export function defineResource(mapping: ResourceMapping): ResourceMapping {
  const message = contract.getMessage(resourceMessageName(mapping));
  if (!message) return mapping;
  return { ...mapping, declaredFields: mapping.fields, fields: withContract(contractFields(message), mapping.fields, mapping.name) };
}
