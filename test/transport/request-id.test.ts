/**
 * A request's id (src/transport/request-id.ts): the caller's own when it is usable, otherwise a random
 * (version 4) UUID of the form crypto.randomUUID() gives, never the same twice.
 */
import { describe, expect, it } from 'vitest';
import { newUuid, requestIdOf } from '../../src/transport/request-id.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it("keeps the caller's id when a line and a header can carry it", () => {
    expect(requestIdOf('abc-123')).toBe('abc-123');
    expect(requestIdOf(['first', 'second'])).toBe('first');
    for (const unusable of [undefined, null, '', 'has space', 'x'.repeat(129), 'é']) expect(requestIdOf(unusable)).toMatch(UUID_V4);
  });

  it('makes version 4 UUIDs, each new, across refills of its random bytes', () => {
    const ids = new Set<string>();
    // More than the ids one fill of random bytes makes (128), several times over.
    for (let i = 0; i < 1000; i++) ids.add(newUuid());
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    // Every hex digit the random part can hold turns up (a digit table or a shift gone wrong would lose some).
    expect(new Set([...ids].join('').replaceAll('-', ''))).toEqual(new Set('0123456789abcdef'));
  });
});
