/**
 * The report as a page for a person who must decide whether to switch: one
 * self-contained HTML file, no build step and nothing fetched from elsewhere.
 * Served live at /_gateway/compare (it reads ./compare/report, and again
 * every few seconds), and written beside report.json by a replay (the report
 * embedded). One line on top says what was compared and whether it is safe
 * to switch, how many calls went unanswered (they count against a pass) and
 * how many comparisons a stop of the comparison's worker thread took, if
 * any; failing methods come first, the verdict in the first column. Every
 * value is put in with textContent, never as markup.
 */
import type { Report } from './tally.ts';

export function comparePage(embedded?: Report): string {
  const data = embedded ? JSON.stringify(embedded).replace(/</g, '\\u003c') : 'null';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>v2gw: side-by-side comparison</title>
<style>
body{font:13px/1.35 system-ui,sans-serif;margin:.8em 1em;color:#222}
h1{font-size:1.3em;margin:.2em 0 .4em}
#decision{font-size:1.05em;padding:.6em .8em;border-radius:4px;margin:.5em 0;background:#f4f4f4}
#decision.safe{background:#dfd}#decision.unsafe{background:#fdd}
#decision b{margin-right:.6em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .3em;text-align:right;white-space:nowrap}
th{background:#f4f4f4;font-weight:600;white-space:normal;vertical-align:bottom}td.m,th.m{text-align:left}
.pass{background:#dfd}.fail{background:#fdd}.undecided{background:#ffd}.not-compared{background:#eee;color:#666}
td.name{max-width:16em;overflow:hidden;text-overflow:ellipsis}
details{margin:.4em 0}summary{cursor:pointer}
table.fields td{white-space:normal;vertical-align:top}
table.fields td.v{font-family:ui-monospace,monospace;font-size:12px;max-width:28em;word-break:break-all;text-align:left}
pre{background:#f7f7f7;padding:.5em;overflow:auto;max-height:20em;white-space:pre-wrap;word-break:break-all}
</style></head><body>
<h1>Side-by-side comparison</h1>
<p id="decision">Loading…</p>
<p id="summary"></p>
<table id="methods"><thead><tr><th class="m">verdict</th><th class="m">method</th><th>compared</th><th>mismatch rate</th><th>95 % upper bound</th><th>samples needed</th><th>equal</th><th>expected</th><th>transient</th><th>access</th><th>dataLoss</th><th>value</th><th>cosmetic</th><th>skipped</th><th>errors</th><th>dropped</th><th>refused</th><th title="comparisons lost to a stop of the comparison&#39;s worker thread">worker stop</th></tr></thead><tbody></tbody></table>
<div id="detail"></div>
<script>
const embedded = ${data};
const ORDER = { fail: 0, undecided: 1, pass: 2, 'not compared': 3 };
function cell(row, text, cls) { const td = document.createElement('td'); td.textContent = String(text); if (cls) td.className = cls; row.appendChild(td); return td; }
function percent(x) { return (x * 100).toFixed(2) + ' %'; }
function short(method) { return method.split('/').pop(); }
function stopped(m) { return m.workerStop ? m.workerStop.errors + m.workerStop.dropped : 0; }
function unanswered(m) { return Math.max(0, m.errors - (m.workerStop ? m.workerStop.errors : 0)); }
function render(report) {
  const methods = [...report.methods].sort((a, b) => ORDER[a.verdict.decision] - ORDER[b.verdict.decision] || a.method.localeCompare(b.method));
  const counts = { pass: 0, fail: 0, undecided: 0, 'not compared': 0 };
  let compared = 0;
  let lost = 0;
  let silent = 0;
  for (const m of methods) { counts[m.verdict.decision]++; compared += m.compared; lost += stopped(m); silent += unanswered(m); }
  const safe = counts.pass > 0 && counts.fail === 0 && counts.undecided === 0;
  const decision = document.getElementById('decision');
  decision.className = safe ? 'safe' : 'unsafe';
  decision.replaceChildren();
  const head = document.createElement('b');
  head.textContent = safe ? 'Safe to switch.' : 'Not safe to switch yet.';
  decision.appendChild(head);
  const candidate = report.candidate ?? (report.targets ? Object.entries(report.targets).map(([k, v]) => k + ': ' + v).join(', ') : '(none)');
  const rate = report.sample !== undefined ? 'sample rate ' + percent(report.sample) : 'replay of ' + (report.calls ?? 0) + ' calls';
  decision.appendChild(document.createTextNode('Candidate ' + candidate + ' · ' + rate + ' · target mismatch rate ' + percent(report.targetRate ?? 0)
    + ' · ' + counts.pass + ' pass · ' + counts.fail + ' fail · ' + counts.undecided + ' undecided · ' + counts['not compared'] + ' not compared'
    + (report.run ? ' · run ' + report.run : '')
    + (silent > 0 ? ' · ' + silent + ' call(s) ' + (report.targets ? 'a target' : 'the candidate') + ' did not answer (they count as mismatches in the bounds)' : '')
    + (lost > 0 ? ' · ' + lost + ' comparison(s) lost to comparison worker stops (under way ones count as mismatches in the bounds)' : '')));
  document.getElementById('summary').textContent = methods.length + ' method(s), ' + compared + ' comparison(s)' + (report.generatedAt ? ', as of ' + report.generatedAt : '');
  const body = document.querySelector('#methods tbody');
  body.replaceChildren();
  const detail = document.getElementById('detail');
  detail.replaceChildren();
  for (const m of methods) {
    const v = m.verdict;
    const row = document.createElement('tr');
    row.dataset.method = m.method;
    cell(row, v.decision, 'm ' + v.decision.replace(' ', '-'));
    cell(row, short(m.method), 'm name').title = m.method;
    cell(row, m.compared);
    cell(row, m.compared ? percent(v.mismatchRate) : '—');
    cell(row, m.compared ? percent(v.upperBound95) : '—');
    cell(row, v.samplesNeeded === null ? '—' : v.samplesNeeded);
    for (const value of [m.equal, m.expected ?? 0, m.transient, m.different.access, m.different.dataLoss, m.different.value, m.different.cosmetic, m.skipped, m.errors, m.dropped ?? 0, m.refused ?? 0]) cell(row, value);
    const lostCell = cell(row, stopped(m));
    if (m.workerStop) lostCell.title = m.workerStop.errors + ' under way (in errors), ' + m.workerStop.dropped + ' offered while it was down (in dropped)';
    body.appendChild(row);
    if (m.fields.length === 0 && m.samples.length === 0) continue;
    const box = document.createElement('details');
    box.dataset.method = m.method;
    if (v.decision === 'fail') box.open = true;
    const title = document.createElement('summary');
    title.textContent = short(m.method) + ' (' + v.decision + '): ' + m.fields.length + ' differing field(s)';
    title.title = m.method;
    box.appendChild(title);
    const table = document.createElement('table');
    table.className = 'fields';
    const top = document.createElement('tr');
    for (const h of ['field', 'class', 'count', 'why', 'primary', 'candidate']) { const th = document.createElement('th'); th.textContent = h; th.className = 'm'; top.appendChild(th); }
    table.appendChild(top);
    for (const f of m.fields) {
      const r = document.createElement('tr');
      cell(r, f.path, 'm'); cell(r, f.class, 'm'); cell(r, f.count);
      cell(r, [f.reason, f.noise ? 'noise' : '', f.odd ? 'odd: ' + f.odd : ''].filter(Boolean).join('; '), 'm');
      cell(r, f.example ? f.example.primary : '', 'v'); cell(r, f.example ? f.example.candidate : '', 'v');
      table.appendChild(r);
    }
    box.appendChild(table);
    if (m.samples.length > 0) {
      const kept = document.createElement('details');
      const label = document.createElement('summary');
      label.textContent = m.samples.length + ' kept sample(s), whole';
      kept.appendChild(label);
      for (const s of m.samples) { const pre = document.createElement('pre'); pre.textContent = JSON.stringify(s, null, 2); kept.appendChild(pre); }
      box.appendChild(kept);
    }
    detail.appendChild(box);
  }
}
async function load() {
  try {
    const reply = await fetch('compare/report', { cache: 'no-store' });
    render(await reply.json());
  } catch (error) {
    document.getElementById('decision').textContent = 'The report could not be read: ' + error;
  }
}
if (embedded) render(embedded); else { load(); setInterval(load, 5000); }
</script></body></html>
`;
}
