/**
 * The least comparison (the `compare` part's floor, bench/translation-floor-process.ts `--compare-with`): the
 * same question asked of a candidate through undici's dispatch (no stream, no promise: the lightest call
 * undici offers), its answer's chunks gathered and held against the JSON text sent: the same text is the
 * same answer, unread (as the gateway's comparison counts a candidate answering the primary's very bytes);
 * other text is parsed and held against the document sent, and counted. The same code runs on the floor's
 * event loop, which hands it the document it sent too, or on a worker thread of its own
 * (bench/least-comparison-worker.ts), which parses the text again only when the answers' texts differ.
 *
 * Bounded as the gateway's comparison is by default (--compare-concurrency 8, --compare-queue 1000): a
 * candidate slower than the caller costs the floor a queue, not a connection a request.
 */
import { isDeepStrictEqual } from 'node:util';
import { Pool } from 'undici';

/** What the comparisons came to, as `/_floor/comparisons` answers it: the benchmark reads a figure only where none was skipped. */
export interface ComparisonCounts {
  compared: number;
  equal: number;
  skipped: number;
  failed: number;
}

const [COMPARED, EQUAL, SKIPPED, FAILED] = [0, 1, 2, 3];
/** The bytes the counts take. */
export const COUNT_BYTES = 4 * 4;

/**
 * Counts held in 32-bit slots, so a worker thread can keep them in a SharedArrayBuffer the main thread
 * reads when asked (no message a count); on one thread, in an array of its own.
 */
export function countSlots(buffer: ArrayBufferLike = new ArrayBuffer(COUNT_BYTES)): Int32Array {
  return new Int32Array(buffer, 0, COUNT_BYTES / 4);
}

/** The counts as they stand (Atomics: another thread may be counting). */
export function countsOf(slots: Int32Array): ComparisonCounts {
  return { compared: Atomics.load(slots, COMPARED), equal: Atomics.load(slots, EQUAL), skipped: Atomics.load(slots, SKIPPED), failed: Atomics.load(slots, FAILED) };
}

const MOST_RUNNING = 8;
const MOST_WAITING = 1000;

export interface LeastComparisonOptions {
  /** The candidate's origin. */
  readonly url: string;
  /** The candidate's path for the question (v2's). */
  readonly path: string;
  readonly counts: Int32Array;
}

/**
 * Asks the candidate, as the caller (its Authorization), once for each answer sent (its JSON text, and the
 * document where the caller still holds it); a failure only ends the comparison.
 */
export function leastComparison({ url, path, counts }: LeastComparisonOptions): (text: string, document: unknown, authorization: string | undefined) => void {
  const candidate = new Pool(url, { connections: MOST_RUNNING });
  let waiting = 0;
  return (text, document, authorization) => {
    if (waiting >= MOST_WAITING) {
      Atomics.add(counts, SKIPPED, 1);
      return;
    }
    waiting++;
    const chunks: Buffer[] = [];
    candidate.dispatch({ method: 'GET', path, headers: authorization ? { authorization } : {} }, {
      onRequestStart: () => {},
      onResponseStart: () => {},
      onResponseData: (_controller, chunk) => void chunks.push(chunk),
      onResponseEnd: () => {
        waiting--;
        Atomics.add(counts, COMPARED, 1);
        try {
          const answer = Buffer.concat(chunks).toString('utf8');
          if (answer === text || isDeepStrictEqual(JSON.parse(answer), document ?? JSON.parse(text))) Atomics.add(counts, EQUAL, 1);
        } catch {
          // Not JSON: nothing to hold it against.
        }
      },
      onResponseError: () => {
        waiting--;
        Atomics.add(counts, FAILED, 1);
      },
    });
  };
}
