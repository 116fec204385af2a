/**
 * The primary's answer as an Outcome: the document the runner produced, or
 * its error as the wire renders it (toAipBody: an ErrorInfo whose reason is
 * the code's name, then the error's own details).
 */
import { ApiError } from '../aip/errors.ts';
import type { Json } from '../vocabulary/json.ts';
import { Code, codeName } from '../rpc-status.ts';
import { UNANSWERED } from './candidate.ts';
import { detailTypeName, type Outcome } from './outcome.ts';

export function answered(document: Json): Outcome {
  return { kind: 'answer', message: document };
}

export function failed(error: unknown): Outcome {
  const code = error instanceof ApiError ? error.code : Code.INTERNAL;
  if (UNANSWERED.has(code)) return { kind: 'unanswered', why: codeName(code) };
  const types = new Set(['google.rpc.ErrorInfo', ...(error instanceof ApiError ? error.details.map((d) => detailTypeName(d['@type'])) : [])]);
  return { kind: 'error', code, reason: codeName(code), detailTypes: [...types].sort() };
}
