/**
 * The v1 emulator: a faithful in-memory v1 Chainguard IAM/Registry server
 * (groups, identities, roles, role bindings, repos) speaking grpc-gateway JSON.
 * It is the contract the gateway is tested and benchmarked against.
 */
import type { FastifyInstance } from 'fastify';
import { GROUP, GROUP_WITH_TIMESTAMPS } from './messages.ts';
import { groupRoutes } from './routes/groups.ts';
import { identityRoutes } from './routes/identities.ts';
import { repoRoutes } from './routes/repos.ts';
import { roleBindingRoutes } from './routes/role-bindings.ts';
import { roleRoutes } from './routes/roles.ts';
import { seedDemo, type DemoOrg } from './seed.ts';
import { buildServer } from './server.ts';
import { EmulatorState } from './state.ts';

export { EmulatorState } from './state.ts';
export type {
  GroupFields,
  IdentityFields,
  RepoFields,
  RoleBindingFields,
  RoleFields,
  V1BindingRow,
  V1Group,
  V1Identity,
  V1Repo,
  V1Role,
  V1RoleBinding,
} from './state.ts';
export type { DemoOrg } from './seed.ts';

export interface EmulatorOptions {
  seed?: 'demo' | 'none';
  /** Added to every response, to simulate a slow backend. */
  latencyMs?: number;
  /** Emit Group exactly as the public v1 proto does, without createdAt/updatedAt. */
  omitGroupTimestamps?: boolean;
  /** Refuse a bearer token with UNAUTHENTICATED; every non-empty token is accepted by default. */
  acceptToken?: (token: string) => boolean;
  logger?: boolean;
  /** Clock in microseconds since the epoch, to pin timestamps in tests. */
  clock?: () => number;
}

export interface RunningEmulator {
  /** http://127.0.0.1:<port> */
  url: string;
  state: EmulatorState;
  close(): Promise<void>;
  demo?: DemoOrg;
}

export function buildEmulator(options: EmulatorOptions = {}): { app: FastifyInstance; state: EmulatorState; demo?: DemoOrg } {
  const state = new EmulatorState(options.clock ? { clock: options.clock } : {});
  const groupMessage = options.omitGroupTimestamps ? GROUP : GROUP_WITH_TIMESTAMPS;
  const app = buildServer({
    routes: [
      ...groupRoutes(state, groupMessage),
      ...identityRoutes(state),
      ...roleRoutes(state),
      ...roleBindingRoutes(state, groupMessage),
      ...repoRoutes(state),
    ],
    ...(options.latencyMs !== undefined && { latencyMs: options.latencyMs }),
    ...(options.acceptToken && { acceptToken: options.acceptToken }),
    ...(options.logger !== undefined && { logger: options.logger }),
  });
  const demo = options.seed === 'demo' ? seedDemo(state) : undefined;
  return demo ? { app, state, demo } : { app, state };
}

export async function startEmulator(
  options: EmulatorOptions & { port?: number; host?: string } = {},
): Promise<RunningEmulator> {
  const { port = 0, host = '127.0.0.1', ...rest } = options;
  const { app, state, demo } = buildEmulator(rest);
  await app.listen({ port, host });
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  const running: RunningEmulator = { url, state, close: () => app.close() };
  if (demo) running.demo = demo;
  return running;
}
