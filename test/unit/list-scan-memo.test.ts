import { describe, expect, it } from 'vitest';
import { AnswerBody } from '../../src/v1/answer-body.ts';
import { ScannedRows } from '../../src/v1/list-body.ts';
import { ListScanMemo } from '../../src/v1/list-scan-memo.ts';

/** An answer as it arrives: its bytes in pieces of `piece` (so comparisons cross their edges). */
const answerOf = (bytes: Buffer, piece = 7) => new AnswerBody(Array.from({ length: Math.ceil(bytes.length / piece) }, (_, i) => bytes.subarray(i * piece, (i + 1) * piece)));
const body = (rows: Array<Record<string, unknown>>) => answerOf(Buffer.from(JSON.stringify({ items: rows })));
const ROWS = [
  { id: 'a', name: 'one', description: 'x' },
  { id: 'b', name: 'two', description: 'y' },
];

function scanned(answer: unknown): ScannedRows {
  const items = (answer as { items: unknown }).items;
  expect(items).toBeInstanceOf(ScannedRows);
  return items as ScannedRows;
}

describe('ListScanMemo', () => {
  it('reuses the reading of an answer whose bytes it has read before, and says so', () => {
    const lookups: boolean[] = [];
    const memo = new ListScanMemo({ maxBytes: 1 << 20, onLookup: (hit) => lookups.push(hit) });
    const first = memo.read(body(ROWS), ['id'], [], 'caller-a');
    // Equal bytes in another buffer, as the next v1 answer brings them.
    const second = memo.read(body(ROWS), ['id'], [], 'caller-a');
    expect(second).toBe(first);
    expect(lookups).toEqual([false, true]);
    expect(scanned(second).partial).toEqual([{ id: 'a' }, { id: 'b' }]);
  });

  it('reads afresh when one byte differs, even at the same length', () => {
    const memo = new ListScanMemo({ maxBytes: 1 << 20 });
    const before = memo.read(body(ROWS), ['id', 'name'], [], 'caller-a');
    const changed = memo.read(body([ROWS[0]!, { ...ROWS[1]!, name: 'twO' }]), ['id', 'name'], [], 'caller-a');
    expect(changed).not.toBe(before);
    expect(scanned(changed).partial[1]).toEqual({ id: 'b', name: 'twO' });
    expect(scanned(changed).whole(1)).toEqual({ id: 'b', name: 'twO', description: 'y' });
  });

  it('reads afresh for other members or another presence set: the reading depends on them', () => {
    const memo = new ListScanMemo({ maxBytes: 1 << 20 });
    const byId = memo.read(body(ROWS), ['id'], [], 'caller-a');
    const byName = memo.read(body(ROWS), ['name'], [], 'caller-a');
    expect(byName).not.toBe(byId);
    expect(scanned(byName).partial).toEqual([{ name: 'one' }, { name: 'two' }]);
    const presence = memo.read(body(ROWS), ['name'], ['description'], 'caller-a');
    expect(scanned(presence).partial).toEqual([{ name: 'one', description: true }, { name: 'two', description: true }]);
  });

  it('keeps nothing when turned off, and nothing past its budget', () => {
    const off = new ListScanMemo({ maxBytes: 0 });
    expect(off.read(body(ROWS), ['id'], [], 'caller-a')).not.toBe(off.read(body(ROWS), ['id'], [], 'caller-a'));
    const small = new ListScanMemo({ maxBytes: 64 });
    expect(small.read(body(ROWS), ['id'], [], 'caller-a')).not.toBe(small.read(body(ROWS), ['id'], [], 'caller-a'));
  });

  it('answers what readListAnswer answers for a body that is not a list of rows, and keeps none of it', () => {
    const memo = new ListScanMemo({ maxBytes: 1 << 20 });
    const bytes = Buffer.from('{"items":[1,2],"nextPageToken":"t"}');
    const answer = memo.read(answerOf(bytes), ['id'], [], 'caller-a');
    expect(answer).toEqual({ items: [1, 2], nextPageToken: 't' });
    expect(memo.read(answerOf(bytes), ['id'], [], 'caller-a')).not.toBe(answer);
    expect(() => memo.read(answerOf(Buffer.from('{"items":[{"id":"a"}')), ['id'], [], 'caller-a')).toThrow();
  });

  it('keeps readings per caller: the same bytes asked for by another caller are read afresh', () => {
    const memo = new ListScanMemo({ maxBytes: 1 << 20 });
    const mine = memo.read(body(ROWS), ['id'], [], 'caller-a');
    expect(memo.read(body(ROWS), ['id'], [], 'caller-b')).not.toBe(mine);
    expect(memo.read(body(ROWS), ['id'], [], 'caller-a')).toBe(mine);
  });
});
