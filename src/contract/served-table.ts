/**
 * The README's "Every RPC" table, made from the contract, the bindings the
 * mappings give it and the declared unserved list — never by hand, so it
 * cannot drift: `npm run docs:served` rewrites it between its markers, and
 * test/contract/served.test.ts fails when the README's copy is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { DescService } from '@bufbuild/protobuf';
import type { Binding } from './bindings.ts';
import { httpRule } from './registry.ts';

export const BEGIN = '<!-- every-rpc:begin (npm run docs:served) -->';
export const END = '<!-- every-rpc:end -->';

export function servedTable(services: readonly DescService[], bindings: readonly Binding[], reasons: Readonly<Record<string, string>>): string {
  const served = new Set(bindings.map((b) => b.method));
  const rows = ['| service | RPC | REST | translate | native | not served because |', '|---|---|---|:-:|:-:|---|'];
  for (const service of services) {
    for (const method of service.methods) {
      const rule = httpRule(method);
      const route = rule ? `\`${rule.verb.toUpperCase()} ${rule.pattern}\`` : '';
      const name = `${service.typeName}.${method.name}`;
      const on = served.has(method);
      const mark = on ? 'yes' : 'no';
      rows.push(`| ${service.name} | ${method.name} | ${route} | ${mark} | ${mark} | ${on ? '' : (reasons[name] ?? '').replace(/\|/g, '\\|')} |`);
    }
  }
  return rows.join('\n');
}

/** `readme` with the text between the markers replaced by `table`. */
export function withTable(readme: string, table: string): string {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`README.md lacks the markers ${BEGIN} … ${END}`);
  return `${readme.slice(0, begin + BEGIN.length)}\n${table}\n${readme.slice(end)}`;
}

if (import.meta.main) {
  const { apiServices } = await import('./registry.ts');
  const { bindContract } = await import('./bindings.ts');
  const { MAPPINGS } = await import('../../mappings/index.ts');
  const { UNSERVED } = await import('../../mappings/unserved.ts');
  const services = apiServices();
  const path = new URL('../../README.md', import.meta.url);
  const readme = readFileSync(path, 'utf8');
  writeFileSync(path, withTable(readme, servedTable(services, bindContract(services, MAPPINGS), UNSERVED)));
}
