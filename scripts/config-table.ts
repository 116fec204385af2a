/**
 * The README's configuration table, made from src/config.ts's OPTIONS — the table `--help` prints — so
 * the two cannot drift: `npm run docs:config` rewrites it between its markers, and
 * test/docs/readme-config.test.ts fails when the README's copy is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { OPTIONS, defaultOf, describeDefault } from '../src/config.ts';

export const BEGIN = '<!-- configuration:begin (npm run docs:config) -->';
export const END = '<!-- configuration:end -->';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** One row per setting: flag, variable, default (as `--help` shows it), and the help text. */
export function configTable(): string {
  const rows = ['| flag | environment | default | meaning |', '|---|---|---|---|'];
  for (const option of Object.values(OPTIONS)) {
    const value = defaultOf(option);
    const shown = value === undefined ? 'unset' : `\`${describeDefault(value)}\``;
    rows.push(`| \`--${option.flag}\` | \`${option.env}\` | ${shown} | ${cell(option.help)} |`);
  }
  return rows.join('\n');
}

/** `readme` with the text between the markers replaced by `table`. */
export function withConfigTable(readme: string, table: string): string {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`README.md lacks the markers ${BEGIN} … ${END}`);
  return `${readme.slice(0, begin + BEGIN.length)}\n${table}\n${readme.slice(end)}`;
}

if (import.meta.main) {
  const path = new URL('../README.md', import.meta.url);
  writeFileSync(path, withConfigTable(readFileSync(path, 'utf8'), configTable()));
}
