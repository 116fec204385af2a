/**
 * The fuzz suite's randomness: one seeded stream per request, derived from the
 * run's seed and the request's index, so request #i is the same whatever ran
 * before it and can be replayed alone (`--only i`). Built on the project's
 * PRNG (test/support/prng.ts).
 */
import { prng } from '../support/prng.ts';

/** A 32-bit mix of the run's seed and a request's index (splitmix-style), the seed of that request's stream. */
export function streamSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

export class Rand {
  readonly #next: () => number;

  constructor(seed: number) {
    this.#next = prng(seed);
  }

  /** [0, 1). */
  float(): number {
    return this.#next();
  }

  /** An integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.#next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.#next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.#next() * items.length)]!;
  }

  /** One of the choices, by weight; each choice is a value or a function making one. */
  weighted<T>(choices: readonly (readonly [number, () => T])[]): T {
    const total = choices.reduce((sum, [w]) => sum + w, 0);
    let x = this.#next() * total;
    for (const [w, make] of choices) {
      if ((x -= w) < 0) return make();
    }
    return choices[choices.length - 1]![1]();
  }

  /** `n` items drawn with repetition. */
  some<T>(n: number, make: () => T): T[] {
    return Array.from({ length: n }, make);
  }

  hex(n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += '0123456789abcdef'[this.int(0, 15)];
    return out;
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.int(0, 255);
    return out;
  }
}
