/** What the import says to a person: a progress line on a terminal, then a summary and any differences. */
import type { ResourceSummary } from './run-import.ts';
import type { ResourceDifferences } from './verify-import.ts';

/** A line rewritten in place on a terminal, at most a few times a second; nothing where the output is not a terminal. */
export class ProgressLine {
  readonly #out: NodeJS.WriteStream;
  #last = 0;
  #shown = false;

  constructor(out: NodeJS.WriteStream) {
    this.#out = out;
  }

  show(summary: ResourceSummary): void {
    if (!this.#out.isTTY) return;
    const now = Date.now();
    if (now - this.#last < 200) return;
    this.#last = now;
    this.#shown = true;
    this.#out.write(`\r\x1b[K${summary.resource}: ${count(summary.read)} read, ${count(summary.written)} written, ${count(summary.unchanged)} unchanged`);
  }

  done(): void {
    if (this.#shown) this.#out.write('\r\x1b[K');
  }
}

export function formatSummary(summaries: readonly ResourceSummary[], ms: number, peakBytes: number): string {
  const rows = summaries.map((s) => [s.resource, count(s.read), count(s.written), count(s.unchanged), count(s.refused)]);
  const lines = [table(['resource', 'read', 'written', 'unchanged', 'refused'], rows)];
  for (const s of summaries) {
    for (const [why, n] of Object.entries(s.reasons)) lines.push(`refused ${s.resource}: ${count(n)} rows: ${why}`);
    if (s.stale > 0) {
      lines.push(s.pruned > 0
        ? `pruned ${s.resource}: ${count(s.pruned)} rows v1 no longer has were deleted from the store`
        : `stale ${s.resource}: ${count(s.stale)} rows in the store v1 no longer has (deleted in v1 since?); --prune deletes them`);
    }
    if (s.notCarried.length > 0 && s.read > 0) {
      lines.push(`not carried ${s.resource}: ${s.notCarried.join(', ')} (v1 never returns it; set it again in native mode)`);
    }
  }
  const read = summaries.reduce((n, s) => n + s.read, 0);
  lines.push(`${count(read)} rows read in ${(ms / 1000).toFixed(1)} s, ${count(Math.round(read / Math.max(ms / 1000, 0.001)))} rows/s, peak memory ${count(Math.round(peakBytes / 1024 / 1024))} MiB`);
  return `${lines.join('\n')}\n`;
}

export function formatDifferences(results: readonly ResourceDifferences[]): string {
  const rows = results.map((r) => [r.resource, count(r.v1), count(r.store), String(r.onlyInV1.length), String(r.onlyInStore.length), String(r.different.length)]);
  const lines = ['verify: each resource read through translate mode (v1) and native mode (store)', table(['resource', 'v1', 'store', 'only v1', 'only store', 'different'], rows)];
  for (const r of results) {
    for (const uid of r.onlyInV1) lines.push(`${r.resource} ${uid}: only in v1`);
    for (const uid of r.onlyInStore) lines.push(`${r.resource} ${uid}: only in the store`);
    for (const { uid, fields, classes } of r.different) lines.push(`${r.resource} ${uid}: differs in ${fields.map((f, i) => `${f} (${classes[i]})`).join(', ')}`);
    for (const { field, reason, count } of r.expected) lines.push(`${r.resource} ${field}: expected in ${count.toLocaleString('en-US')} (${reason})`);
  }
  return `${lines.join('\n')}\n`;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}
