/**
 * A v2 operation, typed, as either transport builds it: the standard five
 * methods and the custom ones a mapping declares. Built once per request from
 * the REST route or the gRPC message; `execute` then runs every step both
 * backends share, so a backend only does I/O.
 */
import type { OperationKind } from '../vocabulary/resource.ts';
import type { DescMethod } from '@bufbuild/protobuf';
import type { RawQuery } from '../aip/list-request.ts';
import type { CustomMethod } from '../vocabulary/custom-method.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import type { Json } from '../vocabulary/json.ts';
import type { Binding } from '../contract/bindings.ts';
import type { WriteJudge } from './write-judge.ts';

/**
 * The call an operation was read from, as the transport had it: the contract's binding, and the request
 * message in the contract's JSON form (read when asked: only the comparison and the capture want it, and
 * a REST call builds it then). Absent on an operation no transport made (the comparison's re-ask, tests).
 */
export interface TransportCall {
  readonly binding: Binding;
  message(): Json;
}

export type Operation = (
  | { readonly kind: 'list'; readonly mapping: ResourceMapping; readonly query: RawQuery }
  | { readonly kind: 'get'; readonly mapping: ResourceMapping; readonly uid: string }
  | { readonly kind: 'create'; readonly mapping: ResourceMapping; readonly parent: string; readonly body: Json }
  | { readonly kind: 'update'; readonly mapping: ResourceMapping; readonly uid: string; readonly body: Json; readonly mask: string | undefined }
  | { readonly kind: 'delete'; readonly mapping: ResourceMapping; readonly uid: string }
  /** `mapping.methods.batchCreate`: body `{parent, requests: [...], <inherit>?}`. */
  | { readonly kind: 'batchCreate'; readonly mapping: ResourceMapping; readonly body: Json }
  /** `mapping.methods.lookup`: the uid of the resource matching some query fields. */
  | { readonly kind: 'lookup'; readonly mapping: ResourceMapping; readonly query: RawQuery }
  /** `mapping.methods.custom`: the whole request message in JSON form, as the contract reads it. */
  | { readonly kind: 'custom'; readonly mapping: ResourceMapping; readonly method: DescMethod; readonly custom: CustomMethod; readonly request: Json }
) & {
  readonly call?: TransportCall;
  /**
   * A create, batch create or update the policy step judges inside the write's own transaction (write-judge.ts):
   * the runner hands it to the backend, which runs it before it stores anything.
   */
  readonly judge?: WriteJudge;
};

export type { OperationKind };
// Each operation's kind is one the vocabulary declares (a kind added on one side only fails to compile).
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const KINDS_AGREE: Exact<Operation['kind'], OperationKind> = true;
void KINDS_AGREE;
