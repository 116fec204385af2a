/**
 * Two outcomes of one call, compared: answers as messages (message-diff.ts),
 * errors by code, ErrorInfo reason and detail types (never by message text or
 * request id), and an answer against an error by who was denied what.
 */
import type { DescMessage } from '@bufbuild/protobuf';
import { Code } from '../rpc-status.ts';
import { equalJson, diffMessages, type DiffOptions } from './message-diff.ts';
import type { FieldDifference } from './classes.ts';
import type { Outcome } from './outcome.ts';

/** Codes that say the caller may not see something: a side answering one of these where the other answered hid it. */
const DENIALS: ReadonlySet<number> = new Set([Code.PERMISSION_DENIED, Code.UNAUTHENTICATED, Code.NOT_FOUND]);

/** The status of a call, as a path beside the message's own fields. */
export const STATUS_PATH = '(status)';

/**
 * The differences between two answered outcomes (empty when they agree). An
 * outcome without an answer compares to nothing: the caller counts it apart.
 */
export function compareOutcomes(output: DescMessage, a: Outcome, b: Outcome, options: DiffOptions): FieldDifference[] {
  if (a.kind === 'unanswered' || b.kind === 'unanswered') return [];
  if (a.kind === 'answer' && b.kind === 'answer') return diffMessages(output, a.message, b.message, options);
  if (a.kind === 'error' && b.kind === 'error') {
    if (a.code !== b.code) return [{ path: STATUS_PATH, class: DENIALS.has(a.code) || DENIALS.has(b.code) ? 'access' : 'value' }];
    const out: FieldDifference[] = [];
    if (a.reason !== b.reason) out.push({ path: '(status).reason', class: 'value' });
    if (!equalJson(a.detailTypes, b.detailTypes)) out.push({ path: '(status).details', class: 'value' });
    return out;
  }
  const error = a.kind === 'error' ? a : (b as Extract<Outcome, { kind: 'error' }>);
  return [{ path: STATUS_PATH, class: DENIALS.has(error.code) ? 'access' : 'value' }];
}
