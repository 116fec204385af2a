/** Markdown tables as the benchmark READMEs show them: text columns left, figures right, padded to line up. */
export function markdownTable(header: string[], rows: string[][], textColumns = 2): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const line = (row: string[]) => `| ${widths.map((w, i) => (i < textColumns ? (row[i] ?? '').padEnd(w) : (row[i] ?? '').padStart(w))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i < textColumns ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function fmt(value: number | undefined, digits: number): string {
  return value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

export function ratio(value: number | undefined, base: number | undefined): string {
  return value !== undefined && base !== undefined && Number.isFinite(value / base) ? `${(value / base).toFixed(2)}x` : 'n/a';
}
