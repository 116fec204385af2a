/** The README's configuration table is the one `npm run docs:config` makes from src/config.ts's OPTIONS. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/config.ts';
import { BEGIN, END, configTable, withConfigTable } from '../../scripts/config-table.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe("the README's configuration", () => {
  it('has the generated table between its markers', () => {
    expect(readme).toContain(BEGIN);
    expect(readme).toContain(END);
  });

  it('is the table npm run docs:config makes (run it after adding a setting)', async () => {
    expect(withConfigTable(readme, await configTable())).toBe(readme);
  });

  it('names every flag and variable once, with its default', () => {
    const section = readme.slice(readme.indexOf(BEGIN), readme.indexOf(END));
    for (const option of Object.values(OPTIONS)) {
      const rows = section.split('\n').filter((row) => row.startsWith(`| \`--${option.flag}\` | \`${option.env}\` |`));
      expect(rows, option.flag).toHaveLength(1);
    }
    expect(section).toContain('| `--port` | `V2GW_PORT` | `8080` |');
  });
});
