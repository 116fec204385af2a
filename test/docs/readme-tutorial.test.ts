/**
 * The README's "first ten minutes", run as a reader runs it: the gateway started as `npm start` starts it
 * (the CLI, no --v1-url, so the in-process emulator with its demo organisation; on a free port, the only
 * change made to the README's text), then every `sh` block of the section pasted, in order, into one bash.
 * Each curl call must answer 2xx, and each call of the block marked as refused an AIP-193 error; each
 * `buf curl` must succeed. curl and jq must be installed (the README's Set-up says so): a missing one
 * fails here, naming it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startCli, type CliProcess } from '../support/cli-process.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const REFUSED = '<!-- tutorial: each call is refused -->';

/** The `sh` blocks of the section, each with whether its calls must be refused. */
function tutorialBlocks(readme: string): Array<{ script: string; refused: boolean }> {
  const start = readme.indexOf('## The first ten minutes');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/(?:^|\n)((?:<!--[^\n]*-->\n)?)```sh\n([\s\S]*?)\n```/g)].map((m) => ({
    script: m[2]!,
    refused: m[1]!.trim() === REFUSED,
  }));
}

/**
 * curl as the README calls it, checked: the answer is printed as curl would print it, and a call that
 * answers other than expected ends the script with what it sent and got.
 */
const CHECKED_CURL = String.raw`
curl() {
  local out status
  out=$(mktemp)
  status=$(command curl "$@" -o "$out" -w '%{http_code}') || { echo "curl failed: curl $*" >&2; return 1; }
  cat "$out"
  if [ "$EXPECT_REFUSED" = 1 ]; then
    if [ "$status" -lt 400 ] || ! jq -e '.code and .message and (.details | length > 0)' "$out" >/dev/null; then
      echo "expected an AIP-193 refusal, got HTTP $status: curl $*" >&2; cat "$out" >&2; return 1
    fi
  elif [ "$status" -ge 300 ]; then
    echo "HTTP $status: curl $*" >&2; cat "$out" >&2; return 1
  fi
  rm -f "$out"
}
`;

describe("the README's first ten minutes", () => {
  let gateway: CliProcess;
  let port = 0;

  beforeAll(async () => {
    for (const tool of ['curl', 'jq', 'bash']) {
      const found = spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
      expect(found, `${tool} is missing: the README's tutorial needs it (apt-get install -y ${tool})`).toBe(true);
    }
    port = await freePort();
    gateway = await startCli({ V2GW_PORT: String(port), V2GW_HOST: '127.0.0.1', V2GW_V1_URL: '', V2GW_MODE: 'translate' });
  }, 30_000);
  afterAll(async () => {
    await gateway?.stop();
  });

  it('has its blocks, one of them the refused calls', () => {
    const blocks = tutorialBlocks(README);
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    expect(blocks.filter((block) => block.refused)).toHaveLength(1);
  });

  it('runs as written, every call answered as the README says', () => {
    const script = tutorialBlocks(README)
      .map(({ script, refused }) => `EXPECT_REFUSED=${refused ? 1 : 0}\n${script}`)
      .join('\n')
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);
    let output = '';
    try {
      output = execFileSync('bash', ['-c', `set -euo pipefail\n${CHECKED_CURL}\n${script}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      expect.fail(`the tutorial failed:\n${failed.stderr}\n--- output so far ---\n${failed.stdout?.slice(-4000)}`);
    }
    // What the reader is told to expect: the demo organisation's groups and repos, the gRPC answers, the refusals' codes.
    expect(output).toMatch(/^platform$/m);
    expect(output).toMatch(/^nginx$/m);
    expect(output).toContain('"grpc-org"');
    expect(output).toContain('INVALID_ARGUMENT');
    expect(output).toContain('FAILED_PRECONDITION');
  }, 150_000);
});
