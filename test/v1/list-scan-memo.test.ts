import { describe, expect, it } from 'vitest';
import { AnswerBody } from '../../src/v1/answer-body.ts';
import { ScannedRows } from '../../src/v1/list-body.ts';
import { ListScanMemo } from '../../src/v1/list-scan-memo.ts';

/** An answer as it arrives: its bytes in pieces of `piece` (so comparisons cross their edges). */
const answerOf = (bytes: Buffer, piece = 7) => new AnswerBody(Array.from({ length: Math.ceil(bytes.length / piece) }, (_, i) => bytes.subarray(i * piece, (i + 1) * piece)));
const body = (rows: Array<Record<string, unknown>>) => answerOf(Buffer.from(JSON.stringify({ items: rows })));
/** The v1 request the answers are to. */
const LIST = 'GET /iam/v1/groups?uidp.childrenOf=org';
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
    const first = memo.read(body(ROWS), ['id'], [], 'caller-a', LIST);
    // Equal bytes in another buffer, as the next v1 answer brings them.
    const second = memo.read(body(ROWS), ['id'], [], 'caller-a', LIST);
    expect(second).toBe(first);
    expect(lookups).toEqual([false, true]);
    expect(scanned(second).partial).toEqual([{ id: 'a' }, { id: 'b' }]);
  });

  it('offers the bytes it keeps for a reading as the answer likely to come, to that reading only', () => {
    const memo = new ListScanMemo({ maxBytes: 1 << 20 });
    expect(memo.likely(['id'], [], 'caller-a', LIST)).toBeUndefined();
    const answer = body(ROWS);
    memo.read(answer, ['id'], [], 'caller-a', LIST);
    expect(memo.likely(['id'], [], 'caller-a', LIST)?.equals(answer.bytes())).toBe(true);
    for (const [members, scope, request] of [[['name'], 'caller-a', LIST], [['id'], 'caller-b', LIST], [['id'], 'caller-a', `${LIST}&x=1`]] as const) {
      expect(memo.likely(members, [], scope, request)).toBeUndefined();
    }
    // An answer gathered against those bytes and found the same is them: a hit.
    const lookups: boolean[] = [];
    const counted = new ListScanMemo({ maxBytes: 1 << 20, onLookup: (hit) => lookups.push(hit) });
    const first = counted.read(body(ROWS), ['id'], [], 'caller-a', LIST);
    expect(counted.read(AnswerBody.of(counted.likely(['id'], [], 'caller-a', LIST)!), ['id'], [], 'caller-a', LIST)).toBe(first);
    expect(lookups).toEqual([false, true]);
  });

  it('reads afresh when one byte differs, even at the same length', () => {
    const memo = new ListScanMemo({ maxBytes: 1 << 20 });
    const before = memo.read(body(ROWS), ['id', 'name'], [], 'caller-a', LIST);
    const changed = memo.read(body([ROWS[0]!, { ...ROWS[1]!, name: 'twO' }]), ['id', 'name'], [], 'caller-a', LIST);
    expect(changed).not.toBe(before);
    expect(scanned(changed).partial[1]).toEqual({ id: 'b', name: 'twO' });
    expect(scanned(changed).whole(1)).toEqual({ id: 'b', name: 'twO', description: 'y' });
  });

  it('takes over the rows that did not change when the answer to the same request changed, and reads the rest', () => {
    const lookups: boolean[] = [];
    const memo = new ListScanMemo({ maxBytes: 1 << 20, onLookup: (hit) => lookups.push(hit) });
    const three = [...ROWS, { id: 'c', name: 'three', description: 'z' }];
    const before = scanned(memo.read(body(three), ['id', 'name'], [], 'caller-a', LIST));
    const after = scanned(memo.read(body([three[0]!, { ...three[1]!, name: 'TWO!' }, three[2]!]), ['id', 'name'], [], 'caller-a', LIST));
    expect(lookups).toEqual([false, false]);
    expect(after.partial).toEqual([{ id: 'a', name: 'one' }, { id: 'b', name: 'TWO!' }, { id: 'c', name: 'three' }]);
    // The first and last rows are the earlier reading's own; the changed one was read, and each reads whole from the new bytes.
    expect(after.partial[0]).toBe(before.partial[0]);
    expect(after.partial[2]).toBe(before.partial[2]);
    expect(after.partial[1]).not.toBe(before.partial[1]);
    expect(after.whole(2)).toEqual({ id: 'c', name: 'three', description: 'z' });
    // The new answer is the one kept now: asked again, it is reused.
    expect(scanned(memo.read(body([three[0]!, { ...three[1]!, name: 'TWO!' }, three[2]!]), ['id', 'name'], [], 'caller-a', LIST))).toBe(after);
  });

  it('lets no chain of readings grow: a reading holds the one it was made from, and that one no more', () => {
    const memo = new ListScanMemo({ maxBytes: 1 << 20 });
    let rows = scanned(memo.read(body(ROWS), ['id'], [], 'caller-a', LIST));
    for (let n = 0; n < 5; n++) {
      const next = scanned(memo.read(body([...ROWS, { id: `added-${n}` }]), ['id'], [], 'caller-a', LIST));
      expect(next.earlier?.rows).toBe(rows);
      expect(rows.earlier).toBeUndefined();
      rows = next;
    }
  });

  it('keeps a reading per request: the same bytes answered to another request are read afresh', () => {
    const memo = new ListScanMemo({ maxBytes: 1 << 20 });
    const one = memo.read(body(ROWS), ['id'], [], 'caller-a', LIST);
    expect(memo.read(body(ROWS), ['id'], [], 'caller-a', `${LIST}&name=x`)).not.toBe(one);
    expect(memo.read(body(ROWS), ['id'], [], 'caller-a', LIST)).toBe(one);
  });

  it('reads afresh for other members or another presence set: the reading depends on them', () => {
    const memo = new ListScanMemo({ maxBytes: 1 << 20 });
    const byId = memo.read(body(ROWS), ['id'], [], 'caller-a', LIST);
    const byName = memo.read(body(ROWS), ['name'], [], 'caller-a', LIST);
    expect(byName).not.toBe(byId);
    expect(scanned(byName).partial).toEqual([{ name: 'one' }, { name: 'two' }]);
    const presence = memo.read(body(ROWS), ['name'], ['description'], 'caller-a', LIST);
    expect(scanned(presence).partial).toEqual([{ name: 'one', description: true }, { name: 'two', description: true }]);
  });

  it('keeps nothing when turned off, and nothing past its budget', () => {
    const off = new ListScanMemo({ maxBytes: 0 });
    expect(off.read(body(ROWS), ['id'], [], 'caller-a', LIST)).not.toBe(off.read(body(ROWS), ['id'], [], 'caller-a', LIST));
    const small = new ListScanMemo({ maxBytes: 64 });
    expect(small.read(body(ROWS), ['id'], [], 'caller-a', LIST)).not.toBe(small.read(body(ROWS), ['id'], [], 'caller-a', LIST));
    // Told to the List, which then keeps no work with a reading no later List can meet.
    expect(off.keeps).toBe(false);
    expect(small.keeps).toBe(true);
  });

  it('counts in its budget the renderings a List may keep with a reading: twice the body of up to 256 rows', () => {
    const bytes = Buffer.from(JSON.stringify({ items: ROWS })).length;
    // The body and its rows' readings alone (320 bytes a row) fit; with the renderings (twice the body) they do not.
    const withoutRenderings = bytes + ROWS.length * 320;
    const tight = new ListScanMemo({ maxBytes: withoutRenderings + bytes });
    expect(tight.read(body(ROWS), ['id'], [], 'caller-a', LIST)).not.toBe(tight.read(body(ROWS), ['id'], [], 'caller-a', LIST));
    const enough = new ListScanMemo({ maxBytes: withoutRenderings + 2 * bytes });
    const kept = enough.read(body(ROWS), ['id'], [], 'caller-a', LIST);
    expect(enough.read(body(ROWS), ['id'], [], 'caller-a', LIST)).toBe(kept);
  });

  it('answers what readListAnswer answers for a body that is not a list of rows, and keeps none of it', () => {
    const memo = new ListScanMemo({ maxBytes: 1 << 20 });
    const bytes = Buffer.from('{"items":[1,2],"nextPageToken":"t"}');
    const answer = memo.read(answerOf(bytes), ['id'], [], 'caller-a', LIST);
    expect(answer).toEqual({ items: [1, 2], nextPageToken: 't' });
    expect(memo.read(answerOf(bytes), ['id'], [], 'caller-a', LIST)).not.toBe(answer);
    expect(() => memo.read(answerOf(Buffer.from('{"items":[{"id":"a"}')), ['id'], [], 'caller-a', LIST)).toThrow();
  });

  it('keeps readings per caller: the same bytes asked for by another caller are read afresh', () => {
    const memo = new ListScanMemo({ maxBytes: 1 << 20 });
    const mine = memo.read(body(ROWS), ['id'], [], 'caller-a', LIST);
    expect(memo.read(body(ROWS), ['id'], [], 'caller-b', LIST)).not.toBe(mine);
    expect(memo.read(body(ROWS), ['id'], [], 'caller-a', LIST)).toBe(mine);
  });
});
