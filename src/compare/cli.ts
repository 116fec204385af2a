/**
 * `npm run compare -- --from <capture> --a <url> --b <url> [--c <url>] --out <dir> --token-file <file> [--unsafe]`:
 * replays a capture (written by `--capture`) against two or three v2 targets
 * and writes report.json (the shape /_gateway/compare/report serves) and
 * report.html into the output directory, readable by their owner only (they
 * hold redacted samples: answers the token was given). Exits 0 when written;
 * with `--fail-on fail|undecided`, 1 when any method's verdict is at least
 * that bad (the report written first), a gate a CI job can use.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { CandidateProtocol } from './candidate.ts';
import { openCandidate } from './open-candidate.ts';
import { readCapture } from './capture.ts';
import { MAPPINGS } from '../../mappings/index.ts';
import { bindContract } from '../contract/bindings.ts';
import { apiServices } from '../contract/registry.ts';
import { declaredExpectations, Expectations, readExpectations } from './expected.ts';
import { DECISIONS, type Decision } from './verdict.ts';
import { comparePage } from './page.ts';
import { replay } from './replay.ts';

const USAGE = 'usage: npm run compare -- --from <capture.jsonl> --a <url> --b <url> [--c <url>] --out <dir> --token-file <file> [--unsafe] [--protocol rest|grpc] [--target-rate 0.01] [--retry-ms 250] [--compare-expect <file>] [--fail-on fail|undecided]';

export async function main(argv: readonly string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        from: { type: 'string' }, a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' }, out: { type: 'string' },
        'token-file': { type: 'string' }, unsafe: { type: 'boolean' }, protocol: { type: 'string' }, 'target-rate': { type: 'string' },
        'retry-ms': { type: 'string' }, 'compare-expect': { type: 'string' }, 'fail-on': { type: 'string' }, help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const missing = ['from', 'a', 'b', 'out', 'token-file'].filter((name) => !values[name]);
  const protocol = (values.protocol ?? 'rest') as string;
  const targetRate = Number(values['target-rate'] ?? 0.01);
  const retryMs = Number(values['retry-ms'] ?? 250);
  const failOn = values['fail-on'] as string | undefined;
  if (missing.length > 0 || !['rest', 'grpc'].includes(protocol) || !(targetRate >= 0 && targetRate <= 1) || !(retryMs >= 0) || (failOn !== undefined && failOn !== 'fail' && failOn !== 'undecided')) {
    process.stderr.write(`${missing.length > 0 ? `missing: ${missing.map((m) => `--${m}`).join(', ')}` : 'a value is out of range'}\n${USAGE}\n`);
    return 2;
  }
  let token: string;
  let capture: string;
  let expected: ReturnType<typeof readExpectations>;
  try {
    token = readFileSync(String(values['token-file']), 'utf8').trim();
    capture = readFileSync(String(values.from), 'utf8');
    expected = values['compare-expect'] ? readExpectations(String(values['compare-expect'])) : [];
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  const urls = [values.a, values.b, values.c].filter((u): u is string => typeof u === 'string');
  const targets = await Promise.all(urls.map((url) => openCandidate(url, protocol as CandidateProtocol)));
  try {
    const report = await replay(readCapture(capture), {
      targets,
      authorization: /^bearer /i.test(token) ? token : `Bearer ${token}`,
      unsafe: values.unsafe === true,
      targetRate,
      retryMs,
      concurrency: 8,
      timeoutMs: 10_000,
      samplesPerMethod: 20,
      expectations: new Expectations([...expected, ...declaredExpectations(bindContract(apiServices(), MAPPINGS))]),
    });
    const out = String(values.out);
    mkdirSync(out, { recursive: true, mode: 0o700 });
    writeOwnerOnly(join(out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeOwnerOnly(join(out, 'report.html'), comparePage(report));
    const compared = report.methods.reduce((n, m) => n + m.compared, 0);
    process.stdout.write(`${report.calls} calls, ${compared} compared over ${report.methods.length} methods: ${join(out, 'report.json')}, ${join(out, 'report.html')}\n`);
    if (failOn === undefined) return 0;
    const bar = DECISIONS.indexOf(failOn as Decision);
    const failing = report.methods.filter((m) => DECISIONS.indexOf(m.verdict.decision) >= bar);
    for (const m of failing) process.stdout.write(`${m.verdict.decision}: ${m.method}\n`);
    return failing.length > 0 ? 1 : 0;
  } finally {
    await Promise.all(targets.map((t) => t.close()));
  }
}

function writeOwnerOnly(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
