/**
 * Every row of one v1 list, read as v1 sends it and handed on in batches, so a
 * reader holds one batch of rows however large v1's answer is: v1 lists have no
 * paging (except advisories), and a whole organisation's groups can be one
 * answer of hundreds of megabytes. The answer is parsed as it arrives
 * (@streamparser/json, with the parsed rows dropped once emitted), and the next
 * chunk is read only when the caller asks for the next batch. Used by the
 * import (V1Client.listRows); a request's List reads its answer whole instead
 * (list-body.ts), under the request's deadline.
 */
import { JSONParser } from '@streamparser/json';
import type { Dispatcher } from 'undici';
import { fromTransportError, fromV1Response, tooLarge, unreadable } from './errors.ts';
import { withQuery } from './query-string.ts';

export type ListRow = Record<string, unknown>;

/** v1's own paging, for the lists v1 pages itself (advisories): its query parameters and the page size asked for. */
export interface ListPaging {
  pageSize: string;
  pageToken: string;
  size: number;
}

export interface ListRead {
  /** The list's path, from `/` (e.g. `/iam/v1/groups`). */
  path: string;
  query?: Readonly<Record<string, string>>;
  /** The caller's Authorization header, sent as is; never in an error. */
  authorization: string;
  /** Rows handed on at a time. */
  batch: number;
  /**
   * Largest answer read, in bytes: past it the answer is given up (INTERNAL). A parameter, not the
   * client's cap: a reader that holds one batch at a time may take answers far larger than a request may.
   */
  maxBytes: number;
  /** With it, v1's pages are walked until v1 gives no next token. */
  paging?: ListPaging | undefined;
}

/** `GET <path>` (its query included) to v1; its own deadline is the client's, for the headers and for each gap between chunks. */
export type SendGet = (pathAndQuery: string, authorization: string) => Promise<Dispatcher.ResponseData>;

/** Told of each v1 answer as it ends, as the client's other calls are (V1ClientOptions.observe). */
export type ObserveCall = (method: string, status: number, seconds: number) => void;

/**
 * The rows of the list, `batch` at a time, in v1's order; a failure thrown as the ApiError the client throws for it.
 * Each GET is `observe`d once it ends (read to its end, failed, or given up by the reader): its status (0: no
 * answer) and the time spent on it, its body to the end included, the time the reader held a batch left out.
 */
export async function* listRows(send: SendGet, list: ListRead, timeoutMs: number, observe?: ObserveCall): AsyncGenerator<ListRow[]> {
  const { paging } = list;
  let token = '';
  do {
    const query = paging ? { ...list.query, [paging.pageSize]: String(paging.size), ...(token ? { [paging.pageToken]: token } : {}) } : list.query;
    const answer = readAnswer(send, list, withQuery(list.path, query), timeoutMs, observe);
    let next: IteratorResult<ListRow[], string>;
    while (!(next = await answer.next()).done) yield next.value;
    token = paging ? next.value : '';
  } while (token);
}

/** One list answer's rows, in batches; returns v1's next page token ('' when none). */
async function* readAnswer(send: SendGet, list: ListRead, pathAndQuery: string, timeoutMs: number, observe: ObserveCall | undefined): AsyncGenerator<ListRow[], string> {
  const started = performance.now();
  // The time the reader held the batches handed on (the reader's, not v1's), and since when it holds one.
  let held = 0;
  let holding: number | undefined;
  let status = 0;
  try {
    let answer: Dispatcher.ResponseData;
    try {
      answer = await send(pathAndQuery, list.authorization);
    } catch (error) {
      throw noAnswer(error, timeoutMs);
    }
    status = answer.statusCode;
    if (status !== 200) throw fromV1Response(status, await answer.body.text().catch(() => ''), { 'retry-after': answer.headers['retry-after'] });

    let pending: ListRow[] = [];
    let nextToken = '';
    let read = 0;
    const parser = new JSONParser({ paths: ['$.items.*', '$.nextPageToken'], keepStack: false });
    parser.onValue = ({ value, key, parent }) => {
      if (key === 'nextPageToken' && !Array.isArray(parent)) nextToken = typeof value === 'string' ? value : '';
      else if (isRow(value)) pending.push(value);
    };
    try {
      for await (const chunk of answer.body) {
        read += (chunk as Uint8Array).length;
        if (read > list.maxBytes) throw tooLarge(status, list.maxBytes, 'this reader takes');
        try {
          parser.write(chunk as Uint8Array);
        } catch (error) {
          throw notAList(status, error);
        }
        if (pending.length >= list.batch) {
          const full = pending;
          pending = [];
          holding = performance.now();
          yield full;
          held += performance.now() - holding;
          holding = undefined;
        }
      }
      // A cut-off answer is an error, not a shorter list.
      try {
        if (!parser.isEnded) parser.end();
      } catch (error) {
        throw notAList(status, error);
      }
    } catch (error) {
      answer.body.destroy();
      throw isApiError(error) ? error : noAnswer(error, timeoutMs);
    }
    if (pending.length > 0) {
      holding = performance.now();
      yield pending;
      held += performance.now() - holding;
      holding = undefined;
    }
    return nextToken;
  } finally {
    // A reader that gave up while holding a batch: the answer ended when it was handed on.
    observe?.('GET', status, ((holding ?? performance.now()) - started - held) / 1000);
  }
}

/** No answer, or one broken off: the client's error for it, with the transport's own error as its cause (its code names why). */
function noAnswer(error: unknown, timeoutMs: number): Error {
  return Object.assign(fromTransportError(error, timeoutMs), { cause: error });
}

function notAList(status: number, error: unknown): Error {
  return unreadable(status, `not a v1 list (${(error as Error).message})`);
}

function isApiError(error: unknown): boolean {
  return (error as Error | undefined)?.name === 'ApiError';
}

function isRow(value: unknown): value is ListRow {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
