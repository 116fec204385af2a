/**
 * The "Every RPC" table of docs/api.md, made from the contract, the bindings the
 * mappings give it and the declared unserved list — never by hand, so it
 * cannot drift: `npm run docs:served` (scripts/served-table.ts) rewrites it
 * between its markers, and test/contract/served.test.ts fails when that copy
 * is stale.
 */
import type { DescService } from '@bufbuild/protobuf';
import { forMode, type Binding } from './bindings.ts';
import { httpRule } from './registry.ts';

export const BEGIN = '<!-- every-rpc:begin (npm run docs:served) -->';
export const END = '<!-- every-rpc:end -->';

/** `bindings` are every mode's (bindContract); `reasons` the declared unserved list. */
export function servedTable(services: readonly DescService[], bindings: readonly Binding[], reasons: Readonly<Record<string, string>>): string {
  const modes = (['translate', 'native'] as const).map((mode) => {
    const { served, reasons: own } = forMode(bindings, mode);
    return { mode, served: new Set(served.map((b) => b.method)), reasons: { ...reasons, ...own } };
  });
  const rows = ['| service | RPC | REST | translate | native | not served because |', '|---|---|---|:-:|:-:|---|'];
  for (const service of services) {
    for (const method of service.methods) {
      const rule = httpRule(method);
      const route = rule ? `\`${rule.verb.toUpperCase()} ${rule.pattern}\`` : '';
      const name = `${service.typeName}.${method.name}`;
      const marks = modes.map((m) => (m.served.has(method) ? 'yes' : 'no'));
      // The columns say which mode lacks it; only two different reasons need their mode named.
      const missing = modes.filter((m) => !m.served.has(method));
      const texts = missing.map((m) => m.reasons[name] ?? '');
      const why = new Set(texts).size <= 1 ? (texts[0] ?? '') : missing.map((m, i) => `${m.mode}: ${texts[i]}`).join('; ');
      rows.push(`| ${service.name} | ${method.name} | ${route} | ${marks[0]} | ${marks[1]} | ${why.replace(/\|/g, '\\|')} |`);
    }
  }
  const total = services.reduce((n, service) => n + service.methods.length, 0);
  const counts = modes.map((m) => `${m.served.size} in ${m.mode} mode`).join(', ');
  return `${rows.join('\n')}\n\n${total} RPCs; served: ${counts}.`;
}

/** `document` with the text between the markers replaced by `table`. */
export function withTable(document: string, table: string): string {
  const begin = document.indexOf(BEGIN);
  const end = document.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`docs/api.md lacks the markers ${BEGIN} … ${END}`);
  return `${document.slice(0, begin + BEGIN.length)}\n${table}\n${document.slice(end)}`;
}
