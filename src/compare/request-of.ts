/**
 * How the comparison names a call's method. The request message itself is the
 * transport's, carried on the operation (operation.ts's TransportCall): a REST
 * call and a gRPC call asking the same thing carry the same message.
 */
import type { DescMethod } from '@bufbuild/protobuf';

const names = new WeakMap<DescMethod, string>();

/** `package.Service/Method`, the name the report and metrics use (made once per method: it keys every count). */
export function methodName(method: DescMethod): string {
  let name = names.get(method);
  if (name === undefined) names.set(method, (name = `${method.parent.typeName}/${method.name}`));
  return name;
}
