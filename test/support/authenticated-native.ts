/**
 * A native gateway that verifies tokens (`--auth-issuer`) of an issuer of its
 * own, started before a suite's tests and closed after them, and callers by
 * name: `call(who, …)` over REST and `rpc(who, …)` over gRPC, each with an API
 * token whose `sub` is `who` (an identity's uid, or any 40-hex root uid).
 */
import { afterAll, beforeAll } from 'vitest';
import { startIssuer, type RunningIssuer } from '../../src/emulator/issuer/index.ts';
import { GrpcClient } from './grpc.ts';
import { startMode, type ModeStack } from './modes.ts';
import type { Reply } from './stack.ts';

export const AUDIENCE = 'https://api.v2gw.test';

export interface AuthenticatedNative {
  readonly issuer: RunningIssuer;
  readonly stack: ModeStack;
  readonly grpc: GrpcClient;
  /** The Authorization header `who` sends. */
  as(who: string): Promise<string>;
  call(who: string, method: string, path: string, options?: { body?: unknown; query?: Record<string, string | number> }): Promise<Reply>;
  /** A gRPC call as `who`; `service` is the full service name. */
  rpc(who: string, service: string, method: string, request: object): Promise<any>;
}

/** Registers the suite's beforeAll and afterAll; the fields are set once beforeAll has run. */
export function authenticatedNative(mode: 'native' | 'native-pg'): AuthenticatedNative {
  const tokens = new Map<string, string>();
  const self = {
    issuer: undefined as unknown as RunningIssuer,
    stack: undefined as unknown as ModeStack,
    grpc: undefined as unknown as GrpcClient,
    async as(who: string) {
      if (!tokens.has(who)) tokens.set(who, `Bearer ${await self.issuer.apiToken(who, AUDIENCE)}`);
      return tokens.get(who)!;
    },
    async call(who: string, method: string, path: string, options: { body?: unknown; query?: Record<string, string | number> } = {}) {
      return self.stack.client.call(method, path, { ...options, authorization: await self.as(who) });
    },
    async rpc(who: string, service: string, method: string, request: object) {
      return self.grpc.call(service, method, request, { authorization: await self.as(who) });
    },
  };
  beforeAll(async () => {
    self.issuer = await startIssuer();
    self.stack = await startMode(mode, { flags: ['--auth-issuer', self.issuer.url, '--auth-audience', AUDIENCE] });
    self.grpc = new GrpcClient(self.stack.url);
  });
  afterAll(async () => {
    self.grpc?.close();
    await self.stack?.close();
    await self.issuer?.close();
  });
  return self;
}
