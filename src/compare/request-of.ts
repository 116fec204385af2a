/**
 * How the comparison names a call's method, and finds the method by that name
 * again (a capture's calls, the jobs handed to its worker thread). The request message itself is the
 * transport's, carried on the operation (operation.ts's TransportCall): a REST
 * call and a gRPC call asking the same thing carry the same message.
 */
import type { DescMethod } from '@bufbuild/protobuf';
import { contract } from '../contract/registry.ts';

const names = new WeakMap<DescMethod, string>();

/** `package.Service/Method`, the name the report and metrics use (made once per method: it keys every count). */
export function methodName(method: DescMethod): string {
  let name = names.get(method);
  if (name === undefined) names.set(method, (name = `${method.parent.typeName}/${method.name}`));
  return name;
}

const byName = new Map<string, DescMethod>();

/**
 * The contract's method for a report name, `package.Service/Method` (a capture's, or a job handed to the
 * comparison's worker, which asks it once a job): found once per name.
 */
export function methodByName(name: string): DescMethod | undefined {
  const known = byName.get(name);
  if (known) return known;
  const [service, method] = name.split('/');
  const found = contract.getService(service ?? '')?.methods.find((m) => m.name === method);
  // Names that are not the contract's (a capture's file may hold anything) are not kept.
  if (found) byName.set(name, found);
  return found;
}
