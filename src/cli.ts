/**
 * `npm start -- [options]`: serve v2beta1 against a v1 backend (translate
 * mode) or from the gateway's own store (`--mode native`). In translate mode
 * without `--v1-url` it starts the v1 emulator in-process with a demo
 * organisation, so the gateway can be tried with nothing else running.
 */
import { ConfigError, loadConfig, usage, type Config } from './config.ts';
import { buildGateway } from './server.ts';
import { startupSummary } from './startup.ts';
import { releaseStartupMemory } from './startup-memory.ts';
import type { RunningEmulator } from './emulator/v1/index.ts';
import type { RunningIssuer } from './emulator/issuer/index.ts';
import { VERSION } from './version.ts';

function configOrExit(): Config {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage());
    process.exit(0);
  }
  if (argv.includes('--version')) {
    process.stdout.write(`v2gw ${VERSION}\n`);
    process.exit(0);
  }
  try {
    return loadConfig(argv, process.env);
  } catch (error) {
    const message = error instanceof ConfigError ? error.message : `invalid arguments: ${(error as Error).message}`;
    process.stderr.write(`v2gw: ${message}\n\n${usage()}`);
    process.exit(2);
  }
}

async function main(): Promise<void> {
  const config = configOrExit();
  let emulator: RunningEmulator | undefined;
  let issuer: RunningIssuer | undefined;
  // Translate mode without a v1 URL is the demo: an in-process v1 emulator. Native mode has no v1 at all.
  // Imported only then: a gateway in front of a real v1 holds none of the emulator's code.
  if (config.mode === 'translate' && !config.v1Url) {
    const { startEmulator } = await import('./emulator/v1/index.ts');
    emulator = await startEmulator({ seed: 'demo', port: 0, host: '127.0.0.1' });
    const { startIssuer } = await import('./emulator/issuer/index.ts');
    issuer = await startIssuer({ host: '127.0.0.1' });
    issuer.identities.set(DEMO_WORKLOAD.identity, { issuer: issuer.platform.url, subject: DEMO_WORKLOAD.subject });
  }
  const v1Url = config.mode === 'translate' ? (config.v1Url ?? emulator!.url) : undefined;
  const app = await buildGateway({ ...config, v1Url });
  const released = releaseStartupMemory();
  const address = await app.listen({ port: config.port, host: config.host });
  const summary = startupSummary(config, { address, adminAddress: app.adminAddress(), tracing: app.tracing, version: VERSION, v1Url, emulator: !!emulator });
  // Whether start-up's memory was handed back (startup-memory.ts): not without --expose-gc, a deployment's own NODE_OPTIONS.
  app.log.info({ ...summary.fields, startupMemory: released ? 'released' : 'kept (Node runs without --expose-gc)' }, 'v2gw listening');
  for (const warning of summary.warnings) app.log.warn(warning);
  // Probe the backend once now, so a v1 that cannot be reached is logged with its cause at start, not at the first request.
  await app.inject({ method: 'GET', url: '/readyz' });

  if (emulator?.demo) {
    const org = emulator.demo.orgId;
    process.stdout.write(
      `\nv2gw is serving v2beta1 at ${address}, backed by an in-process v1 emulator (${emulator.url}) seeded with a demo organisation.\n` +
        `Mode ${summary.fields.mode}; store ${summary.fields.store}; page tokens ${summary.fields.pageTokens}.\n` +
        `Any bearer token is accepted by the emulator. Try (README.md, "The first ten minutes", creates one of everything):\n\n` +
        `  curl -s -H 'Authorization: Bearer demo' '${address}/iam/v2beta1/groups?uidp.descendants_of=${org}&order_by=name'\n` +
        `  curl -s -H 'Authorization: Bearer demo' '${address}/iam/v2beta1/roleBindings?uidp.descendants_of=${org}'\n` +
        `  curl -s -H 'Authorization: Bearer demo' '${address}/registry/v2beta1/repos?uidp.descendants_of=${org}'\n\n` +
        `gRPC is served on the same port (reflection on, so no .proto files are needed), with buf curl (installed by npm ci) or grpcurl:\n\n` +
        `  npx buf curl --protocol grpc${address.startsWith('http:') ? ' --http2-prior-knowledge' : ''} -H 'authorization: Bearer demo' -d '{"uidp": {"descendantsOf": "${org}"}}' ${address}/chainguard.platform.iam.v2beta1.GroupsService/ListGroups\n` +
        `  grpcurl -plaintext -H 'authorization: Bearer demo' -d '{"uidp": {"descendantsOf": "${org}"}}' ${address.replace(/^https?:\/\//, '')} chainguard.platform.iam.v2beta1.GroupsService/ListGroups\n\n`,
    );
  }
  if (issuer) process.stdout.write(nativeDemo(issuer.url));

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: draining in-flight requests');
    await app.close();
    await emulator?.close();
    await issuer?.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** The demo issuer's workload identity: a platform token for `subject` may assume it at the STS. */
const DEMO_WORKLOAD = { identity: 'd3e0a1c2b4f5960718293a4b5c6d7e8f90a1b2c3', subject: 'demo-workload' };

/** How to run a native gateway that authenticates against the demo's issuer, and get it a token. */
function nativeDemo(issuerUrl: string): string {
  const api = 'http://127.0.0.1:8081';
  return (
    `A token issuer runs at ${issuerUrl} (OIDC discovery, JWKS, STS exchange; a test platform issuer under /platform).\n` +
    `A native gateway that verifies tokens against it (run it in another terminal while this one serves):\n\n` +
    `  npm start -- --mode native --port 8081 --auth-issuer ${issuerUrl} --auth-audience ${api}\n\n` +
    `A token for it: a platform token for the demo workload, exchanged for an API token for identity ${DEMO_WORKLOAD.identity}:\n\n` +
    `  P=$(curl -s '${issuerUrl}/platform/token?sub=${DEMO_WORKLOAD.subject}' | sed 's/.*"token":"\\([^"]*\\)".*/\\1/')\n` +
    `  T=$(curl -s -H "Authorization: Bearer $P" '${issuerUrl}/sts/exchange?aud=${encodeURIComponent(api)}&identity=${DEMO_WORKLOAD.identity}' | sed 's/.*"token":"\\([^"]*\\)".*/\\1/')\n` +
    `  curl -s -X POST -H "Authorization: Bearer $T" ${api}/iam/v2beta1/groups -d '{"name": "my-org"}'   # you own the organisation you create\n\n`
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`v2gw: failed to start: ${(error as Error).message}\n`);
  process.exit(1);
});
