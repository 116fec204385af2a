/**
 * How the comparison names a call's method. The request message itself is the
 * transport's, carried on the operation (operation.ts's TransportCall): a REST
 * call and a gRPC call asking the same thing carry the same message.
 */
import type { DescMethod } from '@bufbuild/protobuf';

/** `package.Service/Method`, the name the report and metrics use. */
export function methodName(method: DescMethod): string {
  return `${method.parent.typeName}/${method.name}`;
}
