/**
 * Which requests are compared: a hash of (method, canonical request message,
 * caller), so every replica, and a replay of the same capture, picks the same
 * ones, and one caller's repeated request is either always compared or never.
 */
import { createHash } from 'node:crypto';

/** The JSON text of a value with object keys sorted at every level. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A number in [0, 1) fixed by the three inputs. */
export function sampleKey(method: string, request: unknown, caller: string): number {
  const digest = createHash('sha256').update(method).update('\0').update(stableJson(request)).update('\0').update(caller).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

export function sampled(rate: number, method: string, request: unknown, caller: string): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  return sampleKey(method, request, caller) < rate;
}
