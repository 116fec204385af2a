/** Service-assigned fields on create: times, expiries from an input-only duration, random codes shown once. */
import { describe, expect, it } from 'vitest';
import { durationMillis, generate } from '../../src/native/assigned-on-create.ts';
import { invalidOn } from '../support/invalid-argument.ts';

const NOW = Date.UTC(2030, 0, 1, 12, 0, 0, 0);
const fixed = (bytes: number) => Buffer.alloc(bytes, 0xab);

describe('durationMillis', () => {
  it('reads protobuf Duration JSON', () => {
    expect(durationMillis('3600s')).toBe(3_600_000);
    expect(durationMillis('1.5s')).toBe(1500);
    expect(durationMillis('0.000000001s')).toBe(0);
    expect(durationMillis('-2s')).toBe(-2000);
  });
  it('refuses other forms', () => {
    for (const text of ['3600', '1h', 's', '1.s', 3600, undefined]) expect(durationMillis(text)).toBeUndefined();
  });
});

describe('generate', () => {
  it('stamps the creation time and computes an expiry from the duration', () => {
    const { stored } = generate({ seen: { kind: 'now' }, expires: { kind: 'expiry', after: 'ttl' } }, { ttl: '90s' }, NOW, fixed);
    expect(stored).toEqual({ seen: '2030-01-01T12:00:00.000Z', expires: '2030-01-01T12:01:30.000Z' });
  });

  it('keeps a once-only code out of the stored values', () => {
    const result = generate({ code: { kind: 'random', bytes: 3, encoding: 'hex', once: true }, key: { kind: 'random', bytes: 2, encoding: 'hex' } }, {}, NOW, fixed);
    expect(result).toEqual({ stored: { key: 'abab' }, once: { code: 'ababab' } });
  });

  it('refuses a missing, malformed or non-positive duration on the input field', () => {
    const rules = { expires: { kind: 'expiry', after: 'ttl' } } as const;
    invalidOn('ttl', () => generate(rules, {}, NOW));
    invalidOn('ttl', () => generate(rules, { ttl: 'soon' }, NOW));
    invalidOn('ttl', () => generate(rules, { ttl: '0s' }, NOW));
  });
});
