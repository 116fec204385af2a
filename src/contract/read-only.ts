/**
 * Which methods only read, and so may be sent to a second target without
 * changing anything there. The real API marks them with the
 * `(chainguard.annotations.mcp)` option's `read_only` hint; our contract does
 * not carry that option yet, so where a method has none its HTTP verb
 * decides: GET reads, every other verb may write.
 */
import { getOption, hasOption, type DescMethod } from '@bufbuild/protobuf';
import { contract, httpRule } from './registry.ts';

const mcp = contract.getExtension('chainguard.annotations.mcp');

/** Reading a method's options decodes them: done once per method, not once per call. */
const known = new WeakMap<DescMethod, boolean>();

export function isReadOnly(method: DescMethod): boolean {
  let readOnly = known.get(method);
  if (readOnly === undefined) {
    readOnly = mcp && hasOption(method, mcp) ? Boolean((getOption(method, mcp) as unknown as { readOnly?: boolean }).readOnly) : httpRule(method)?.verb === 'get';
    known.set(method, readOnly);
  }
  return readOnly;
}
