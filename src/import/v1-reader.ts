/**
 * How the import reads v1: through the gateway's own v1 client (v1/client.ts),
 * a list's rows streamed a batch at a time (V1Client.listRows), and a failure
 * told as the v1 path it was reading and why, never the request's headers.
 */
import { ApiError } from '../aip/errors.ts';
import type { V1Client } from '../v1/client.ts';
import type { Json } from '../vocabulary/json.ts';
import type { V1Reader } from '../../mappings/methods/store-rows.ts';
import { Code } from '../rpc-status.ts';

/**
 * The most one list answer may be. The import holds one batch of rows whatever the answer's size, so
 * this only stops an answer that never ends; a real v1 answer (hundreds of megabytes for a very large
 * organisation's groups) is far below it.
 */
export const MAX_LIST_BYTES = 16 * 1024 ** 3;

/** v1 refused or broke off a read: the path, v1's status (or "no answer") and why. */
export class V1ReadError extends Error {
  readonly path: string;
  readonly status: number;

  constructor(path: string, status: number, detail: string) {
    super(`v1 ${path}: ${status ? `HTTP ${status}` : 'no answer'}${detail ? `: ${detail}` : ''}`);
    this.path = path;
    this.status = status;
  }
}

/** The import's reader over `client`, with its credentials and batch size. */
export function importReader(client: V1Client, authorization: string, batch: number): V1Reader {
  return {
    async *list(path, query = {}, paging) {
      try {
        yield* client.listRows({ path, query, authorization, batch, maxBytes: MAX_LIST_BYTES, paging }) as AsyncIterable<Json[]>;
      } catch (error) {
        throw readError(path, error);
      }
    },
    async get(path, query = {}) {
      try {
        return await client.call<Json>({ method: 'GET', path, query, authorization });
      } catch (error) {
        // NOT_FOUND stays the ApiError a copy can tell apart (an image v1 no longer has).
        if (error instanceof ApiError && error.code === Code.NOT_FOUND) throw error;
        throw readError(path, error);
      }
    },
  };
}

/** The client's error as the import tells it: v1's status, or the transport's own code when v1 gave no answer. */
function readError(path: string, error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const status = Number(error.metadata?.upstreamStatus ?? 0);
  const cause = (error.cause as { code?: unknown } | undefined)?.code;
  return new V1ReadError(path, status, status === 0 && typeof cause === 'string' ? cause : error.message);
}
