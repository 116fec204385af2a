/**
 * Expected differences: a field of a method that two targets are known to
 * answer differently, with the reason. The gateway's own are declared beside
 * the mappings that cause them (a mapping's `expectedDifferences`, by the
 * resource's field path), a team's own in a file (`--compare-expect FILE`, a
 * JSON list of `{"method", "field", "reason"}`). Wherever answers are compared
 * (live, a replay, `import --verify`) such a field is counted apart, never in
 * the verdict. Each one is narrow: one method (`*` matches any run of
 * characters in its name) and one field path exactly as the report writes it.
 */
import { readFileSync } from 'node:fs';
import type { Binding } from '../contract/bindings.ts';
import { methodName } from './request-of.ts';

export interface ExpectedDifference {
  readonly method: string;
  readonly field: string;
  readonly reason: string;
}

export class Expectations {
  readonly #exact = new Map<string, string>();
  readonly #patterns: { method: RegExp; field: string; reason: string }[] = [];

  constructor(list: readonly ExpectedDifference[]) {
    for (const entry of list) {
      if (entry.method.includes('*')) {
        const pattern = entry.method.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
        this.#patterns.push({ method: new RegExp(`^${pattern}$`), field: entry.field, reason: entry.reason });
      } else if (!this.#exact.has(`${entry.method}\t${entry.field}`)) this.#exact.set(`${entry.method}\t${entry.field}`, entry.reason);
    }
  }

  /** Why this field of this method is expected to differ; undefined when it is not. */
  reasonFor(method: string, field: string): string | undefined {
    return this.#exact.get(`${method}\t${field}`) ?? this.#patterns.find((p) => p.field === field && p.method.test(method))?.reason;
  }
}

export const NO_EXPECTATIONS = new Expectations([]);

/**
 * The differences the mappings declare, as entries of the methods that show
 * them: a Get answers the resource (the field's own path), a List its rows
 * (`repos[].updateTime`).
 */
export function declaredExpectations(bindings: readonly Binding[]): ExpectedDifference[] {
  const out: ExpectedDifference[] = [];
  for (const binding of bindings) {
    const declared = binding.mapping.expectedDifferences;
    if (!declared || (binding.kind !== 'get' && binding.kind !== 'list')) continue;
    // A List's rows are its one repeated message field.
    const rows = binding.kind === 'list' ? binding.method.output.fields.find((f) => f.fieldKind === 'list' && f.listKind === 'message') : undefined;
    if (binding.kind === 'list' && !rows) continue;
    for (const [field, reason] of Object.entries(declared)) {
      out.push({ method: methodName(binding.method), field: rows ? `${rows.jsonName}[].${field}` : field, reason });
    }
  }
  return out;
}

/** A team's file of expected differences; throws a message that says what is wrong with it. */
export function readExpectations(path: string): ExpectedDifference[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`--compare-expect ${path}: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`--compare-expect ${path}: must be a JSON list of {"method", "field", "reason"}`);
  return parsed.map((entry, i) => {
    const e = entry as Record<string, unknown>;
    for (const key of ['method', 'field', 'reason']) {
      if (typeof e?.[key] !== 'string' || (e[key] as string).trim() === '') throw new Error(`--compare-expect ${path}: entry ${i} needs a non-empty "${key}"`);
    }
    return { method: String(e.method), field: String(e.field), reason: String(e.reason) };
  });
}
