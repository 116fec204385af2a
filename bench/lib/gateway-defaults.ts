/**
 * How every benchmark gateway runs unless told otherwise: as the image and `npm start` run it (Node's
 * young generation capped, its heap limit under 2 GiB, two malloc arenas), its access lines made and thrown away, no load shedding
 * (the floor has none, and a gateway refusing calls on a busy machine would measure the policy, not the
 * cost). `npm run bench` and `npm run bench:warmup` both start their gateways so.
 */

/** Node flags (the Dockerfile's NODE_OPTIONS, package.json's start). */
export const GATEWAY_NODE_ARGS: readonly string[] = ['--expose-gc', '--max-semi-space-size=8', '--max-old-space-size=2000'];

/** Environment added, as `KEY=VALUE` (the Dockerfile's, and npm start's default). */
export const GATEWAY_ENV: readonly string[] = ['MALLOC_ARENA_MAX=2'];

/** Where the benchmark's servers write their log lines (the gateways', and the floor's with the default duties): each made and written, then thrown away. */
export const BENCH_LOG = '/dev/null';

/** The gateway's own flags at `logLevel`. */
export function gatewayFlags(logLevel: string): string[] {
  return ['--log-level', logLevel, '--bench-log', BENCH_LOG, '--shed-event-loop-delay-ms', '0'];
}

/** `KEY=VALUE` pairs as an environment. */
export function envOf(pairs: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.filter((pair) => pair !== '').map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`expected KEY=VALUE, got ${pair}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}
