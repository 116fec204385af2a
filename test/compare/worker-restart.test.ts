/** The comparison worker's restart back-off (src/compare/worker-restart.ts): doubling to a cap, never giving up, starting over after a healthy run. */
import { describe, expect, it } from 'vitest';
import { RESTART, RestartBackoff } from '../../src/compare/worker-restart.ts';

describe('the restart back-off', () => {
  it('waits a second, doubling with each stop in a row up to a minute, and stays there', () => {
    const backoff = new RestartBackoff();
    expect(Array.from({ length: 10 }, () => backoff.next(undefined))).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000]);
    expect(RESTART).toEqual({ firstMs: 1000, maxMs: 60_000, healthyMs: 60_000 });
  });
  it('starts over after a worker ran healthy its while after loading, not after a shorter run', () => {
    const backoff = new RestartBackoff({ firstMs: 10, maxMs: 100, healthyMs: 500 });
    expect([backoff.next(undefined), backoff.next(499), backoff.next(10)]).toEqual([10, 20, 40]);
    expect(backoff.next(500)).toBe(10);
    expect(backoff.next(undefined)).toBe(20);
  });
});
