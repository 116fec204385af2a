/**
 * The README's configuration table, made from the gateway's settings (src/config.ts's OPTIONS, read
 * through src/index.ts) — the table `--help` prints — so the two cannot drift: `npm run docs:config`
 * rewrites it between its markers, and test/docs/readme-config.test.ts fails when the README's copy
 * is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { settings } from '../src/index.ts';

export const BEGIN = '<!-- configuration:begin (npm run docs:config) -->';
export const END = '<!-- configuration:end -->';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** One row per setting: flag, variable, default (as `--help` shows it), and the help text. */
export async function configTable(): Promise<string> {
  const rows = ['| flag | environment | default | meaning |', '|---|---|---|---|'];
  for (const setting of await settings()) {
    const shown = setting.default === undefined ? 'unset' : `\`${setting.default}\``;
    rows.push(`| \`--${setting.flag}\` | \`${setting.env}\` | ${shown} | ${cell(setting.help)} |`);
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
  writeFileSync(path, withConfigTable(readFileSync(path, 'utf8'), await configTable()));
}
