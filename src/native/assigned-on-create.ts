/**
 * Output fields the service assigns on create (NativeSpec.generated): the
 * creation time, an expiry computed from an input-only duration, random
 * codes. Pure but for the randomness, which is injected.
 */
import { randomBytes } from 'node:crypto';
import { invalidField } from '../aip/errors.ts';
import { getPath, type Json } from '../vocabulary/json.ts';
import type { NativeGenerated } from '../vocabulary/native.ts';

export interface Generated {
  /** Values kept in the document. */
  stored: Json;
  /** Values shown in the create response only. */
  once: Json;
}

/** A `google.protobuf.Duration` in its JSON form ("3600s", "1.5s") in milliseconds; undefined when malformed. */
export function durationMillis(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^(-)?(\d{1,12})(?:\.(\d{1,9}))?s$/.exec(text);
  if (!m) return undefined;
  const millis = Number(m[2]) * 1000 + Number((m[3] ?? '').padEnd(3, '0').slice(0, 3));
  return m[1] ? -millis : millis;
}

export function generate(
  generated: Readonly<Record<string, NativeGenerated>> | undefined,
  input: Json,
  now: number,
  random: (bytes: number) => Buffer = randomBytes,
): Generated {
  const result: Generated = { stored: {}, once: {} };
  for (const [field, rule] of Object.entries(generated ?? {})) {
    switch (rule.kind) {
      case 'now':
        result.stored[field] = new Date(now).toISOString();
        break;
      case 'expiry': {
        const raw = getPath(input, rule.after);
        if (raw === undefined || raw === null || raw === '') throw invalidField(rule.after, 'is required');
        const millis = durationMillis(raw);
        if (millis === undefined || millis <= 0) throw invalidField(rule.after, `"${String(raw)}" is not a positive duration such as "3600s"`);
        const at = new Date(now + millis);
        if (Number.isNaN(at.getTime()) || at.getUTCFullYear() > 9999) throw invalidField(rule.after, 'is too long');
        result.stored[field] = at.toISOString();
        break;
      }
      case 'random':
        (rule.once ? result.once : result.stored)[field] = random(rule.bytes).toString(rule.encoding);
        break;
    }
  }
  return result;
}
