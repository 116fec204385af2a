/**
 * Every row of one v1 list, read as v1 sends it and handed on in batches, so
 * the import holds one batch of rows however large v1's answer is: v1 lists
 * have no paging (except advisories), and a whole organisation's groups can
 * be one answer of hundreds of megabytes. The answer is parsed as it arrives
 * (@streamparser/json, with the parsed rows dropped once emitted), and the
 * next chunk is read only when the caller asks for the next batch.
 */
import { JSONParser } from '@streamparser/json';
import type { Dispatcher } from 'undici';
import { ApiError } from '../aip/errors.ts';
import { Code } from '../rpc-status.ts';

export type Row = Record<string, unknown>;

export interface V1Source {
  /** v1's base URL (scheme, host, port). */
  url: string;
  /** The Authorization header sent with every call: never logged, never in an error. */
  authorization: string;
  /** The connections to v1 (an undici Pool for its origin). */
  dispatcher: Dispatcher;
  /** Deadline for the headers of each answer and for each gap between its chunks. */
  timeoutMs: number;
}

/** v1's own paging, for the lists v1 pages itself (advisories). */
export interface V1Paging {
  pageSize: string;
  pageToken: string;
  size: number;
}

/** v1 refused or broke off a list: the status and v1's own message, never the request's headers. */
export class V1ReadError extends Error {
  readonly path: string;
  readonly status: number;

  constructor(path: string, status: number, detail: string) {
    super(`v1 ${path}: ${status ? `HTTP ${status}` : 'no answer'}${detail ? `: ${detail}` : ''}`);
    this.path = path;
    this.status = status;
  }
}

/** Largest piece of a refusal's body quoted in an error. */
const QUOTED = 300;

/**
 * The rows of `GET <path>?<query>`, `batch` at a time, in v1's order. With
 * `paging`, v1's pages are walked until it gives no next token.
 */
export async function* v1Rows(source: V1Source, path: string, query: Readonly<Record<string, string>>, batch: number, paging?: V1Paging): AsyncGenerator<Row[]> {
  let token = '';
  do {
    const pageQuery = paging ? { ...query, [paging.pageSize]: String(paging.size), ...(token ? { [paging.pageToken]: token } : {}) } : query;
    const answer = readList(source, path, pageQuery, batch);
    let next: IteratorResult<Row[], string>;
    while (!(next = await answer.next()).done) yield next.value;
    token = paging ? next.value : '';
  } while (token);
}

/** One list answer's rows, in batches; returns v1's next page token ('' when none). */
async function* readList(source: V1Source, path: string, query: Readonly<Record<string, string>>, batch: number): AsyncGenerator<Row[], string> {
  const answer = await send(source, path, query);
  if (answer.statusCode !== 200) {
    const text = (await answer.body.text().catch(() => '')).slice(0, QUOTED);
    throw new V1ReadError(path, answer.statusCode, v1Message(text));
  }

  let pending: Row[] = [];
  let nextToken = '';
  const parser = new JSONParser({ paths: ['$.items.*', '$.nextPageToken'], keepStack: false });
  parser.onValue = ({ value, key, parent }) => {
    if (key === 'nextPageToken' && !Array.isArray(parent)) nextToken = typeof value === 'string' ? value : '';
    else if (isRow(value)) pending.push(value);
  };
  try {
    for await (const chunk of answer.body) {
      parser.write(chunk as Uint8Array);
      if (pending.length >= batch) {
        const full = pending;
        pending = [];
        yield full;
      }
    }
    // A cut-off answer is an error, not a shorter list.
    if (!parser.isEnded) parser.end();
  } catch (error) {
    answer.body.destroy();
    throw new V1ReadError(path, answer.statusCode, `the answer is not a v1 list (${(error as Error).message})`);
  }
  if (pending.length > 0) yield pending;
  return nextToken;
}

/** One v1 answer (not a list): NOT_FOUND as the ApiError a recipe can tell apart, any other refusal as a V1ReadError. */
export async function v1Get(source: V1Source, path: string, query: Readonly<Record<string, string>> = {}): Promise<Row> {
  const answer = await send(source, path, query);
  const text = await answer.body.text();
  if (answer.statusCode === 404) throw new ApiError(Code.NOT_FOUND, `v1 ${path}: ${v1Message(text.slice(0, QUOTED))}`);
  if (answer.statusCode !== 200) throw new V1ReadError(path, answer.statusCode, v1Message(text.slice(0, QUOTED)));
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRow(parsed)) return parsed;
  } catch {
    // Refused below.
  }
  throw new V1ReadError(path, answer.statusCode, 'the answer is not a JSON object');
}

/** `GET <path>?<query>` to v1 with the import's credentials; no answer at all is a V1ReadError naming why (never the headers). */
async function send(source: V1Source, path: string, query: Readonly<Record<string, string>>): Promise<Dispatcher.ResponseData> {
  const url = new URL(path, source.url);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  try {
    return await source.dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { authorization: source.authorization, accept: 'application/json' },
      headersTimeout: source.timeoutMs,
      bodyTimeout: source.timeoutMs,
    });
  } catch (error) {
    throw new V1ReadError(path, 0, (error as { code?: string }).code ?? (error as Error).message);
  }
}

function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** v1's error message, where its body is grpc-gateway's `{code, message}`; else the text as it came. */
function v1Message(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // Not JSON: quoted as it is.
  }
  return text.trim();
}
