/**
 * The report as a page for a person: one self-contained HTML file, no build
 * step and nothing fetched from elsewhere. Served live at /_gateway/compare
 * (it reads ./compare/report, and again every few seconds), and written
 * beside report.json by a replay (the report embedded). Every value is put in
 * with textContent, never as markup.
 */
import type { Report } from './tally.ts';

export function comparePage(embedded?: Report): string {
  const data = embedded ? JSON.stringify(embedded).replace(/</g, '\\u003c') : 'null';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>v2gw: side-by-side comparison</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:right}
th{background:#f4f4f4}td.m,th.m{text-align:left}.pass{background:#dfd}.fail{background:#fdd}.undecided{background:#ffd}
details{margin:.5em 0}pre{background:#f7f7f7;padding:.5em;overflow:auto;max-height:20em}
</style></head><body>
<h1>Side-by-side comparison</h1>
<p id="summary">Loading…</p>
<table id="methods"><thead><tr><th class="m">method</th><th>compared</th><th>equal</th><th>transient</th><th>access</th><th>dataLoss</th><th>value</th><th>cosmetic</th><th>skipped</th><th>errors</th><th>dropped</th><th>mismatch rate</th><th>95 % upper bound</th><th>samples needed</th><th>verdict</th></tr></thead><tbody></tbody></table>
<div id="detail"></div>
<script>
const embedded = ${data};
function cell(row, text, cls) { const td = document.createElement('td'); td.textContent = String(text); if (cls) td.className = cls; row.appendChild(td); return td; }
function render(report) {
  const body = document.querySelector('#methods tbody');
  body.replaceChildren();
  const detail = document.getElementById('detail');
  detail.replaceChildren();
  let compared = 0;
  for (const m of report.methods) {
    compared += m.compared;
    const row = document.createElement('tr');
    row.dataset.method = m.method;
    cell(row, m.method, 'm');
    for (const value of [m.compared, m.equal, m.transient, m.different.access, m.different.dataLoss, m.different.value, m.different.cosmetic, m.skipped, m.errors, m.dropped ?? 0]) cell(row, value);
    cell(row, (m.verdict.mismatchRate * 100).toFixed(2) + ' %');
    cell(row, (m.verdict.upperBound95 * 100).toFixed(2) + ' %');
    cell(row, m.verdict.samplesNeeded === null ? '—' : m.verdict.samplesNeeded);
    cell(row, m.verdict.decision ?? '', m.verdict.decision);
    body.appendChild(row);
    if (m.fields.length === 0 && m.samples.length === 0) continue;
    const box = document.createElement('details');
    const title = document.createElement('summary');
    title.textContent = m.method + ': ' + m.fields.length + ' differing field(s)';
    box.appendChild(title);
    const table = document.createElement('table');
    table.className = 'fields';
    const head = document.createElement('tr');
    for (const h of ['path', 'class', 'count', 'odd', 'noise']) { const th = document.createElement('th'); th.textContent = h; th.className = 'm'; head.appendChild(th); }
    table.appendChild(head);
    for (const f of m.fields) {
      const r = document.createElement('tr');
      cell(r, f.path, 'm'); cell(r, f.class, 'm'); cell(r, f.count); cell(r, f.odd ?? '', 'm'); cell(r, f.noise ? 'noise' : '', 'm');
      table.appendChild(r);
    }
    box.appendChild(table);
    for (const s of m.samples) { const pre = document.createElement('pre'); pre.textContent = JSON.stringify(s, null, 2); box.appendChild(pre); }
    detail.appendChild(box);
  }
  document.getElementById('summary').textContent = report.methods.length + ' method(s), ' + compared + ' comparison(s)' + (report.generatedAt ? ', as of ' + report.generatedAt : '');
}
async function load() {
  try {
    const reply = await fetch('compare/report', { cache: 'no-store' });
    render(await reply.json());
  } catch (error) {
    document.getElementById('summary').textContent = 'The report could not be read: ' + error;
  }
}
if (embedded) render(embedded); else { load(); setInterval(load, 5000); }
</script></body></html>
`;
}
