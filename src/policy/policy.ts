/**
 * The policy step as a configuration asks for it (guard.ts): what verifies
 * tokens, what authorizes, and whose identity the sidecar assumes. Each part
 * is loaded only where its mode uses it.
 */
import type { Binding } from '../contract/bindings.ts';
import type { Config } from '../config.ts';
import type { Store } from '../store/types.ts';
import type { AccessModel } from '../vocabulary/access.ts';
import type { Interceptor } from '../port/runner.ts';
import { Guard, type AssumedIdentity } from './guard.ts';
import { MethodRules } from './method-rules.ts';
import type { V1Caller } from './v1-grants.ts';

export interface PolicyParts {
  /** The sidecar's workload identity, when --identity is set (identity/). */
  assumed?: AssumedIdentity | undefined;
  /** Translate mode: the v1 client, which states each token's caller and grants (v1-grants.ts). */
  v1?: V1Caller | undefined;
}

export async function policyStep(
  config: Pick<Config, 'mode' | 'authIssuer' | 'authAudience' | 'authGrantsCacheMs' | 'authJwksCooldownMs'>,
  bindings: readonly Binding[],
  store: Store,
  access: AccessModel,
  parts: PolicyParts = {},
): Promise<Interceptor> {
  const rules = new MethodRules(bindings);
  const issuers = config.authIssuer ?? [];
  const shared = new Set(bindings.flatMap((binding) => (binding.mapping.native?.seed ?? []).map((row) => row.uid)));
  if (config.mode !== 'native') return translateGuard(config, rules, shared, parts);
  if (issuers.length === 0) return (inner) => new Guard(inner, { rules, unverifiedCallers: true });
  const [{ TokenVerifier }, { Authorizer }, { Grants }, { StoreGrants }, { EscalationCheck }] = await Promise.all([
    import('./token-verifier.ts'),
    import('./authorizer.ts'),
    import('./grants.ts'),
    import('./store-grants.ts'),
    import('./no-escalation.ts'),
  ]);
  const stored = new StoreGrants(store, access);
  const grants = new Grants(stored, config.authGrantsCacheMs);
  const verifier = new TokenVerifier({ issuers, audience: config.authAudience!, jwksCooldownMs: config.authJwksCooldownMs });
  const authorizer = new Authorizer(grants, shared);
  const escalation = new EscalationCheck(grants, stored);
  return (inner) => new Guard(inner, {
    rules,
    verifier,
    authorizer,
    escalation,
    bindOwner: (organisation, identity) => stored.bindCreator(organisation, identity),
  });
}

/**
 * Translate mode: v1 judges every token. What v1 serves, it authorizes on the call itself; what the store
 * keeps (two-systems.ts) is authorized here, as native mode authorizes it, by the caller and grants v1
 * states for the token (v1-grants.ts).
 */
async function translateGuard(
  config: Pick<Config, 'authGrantsCacheMs'>,
  rules: MethodRules,
  shared: ReadonlySet<string>,
  parts: PolicyParts,
): Promise<Interceptor> {
  const [{ Authorizer }, { V1Grants }, { servedFromStore }] = await Promise.all([
    import('./authorizer.ts'),
    import('./v1-grants.ts'),
    import('../operation/two-systems.ts'),
  ]);
  if (!parts.v1) throw new Error('translate mode needs the v1 client to ask who a token is');
  const v1 = new V1Grants(parts.v1, config.authGrantsCacheMs);
  const authorizer = new Authorizer(v1, shared);
  return (inner) => new Guard(inner, {
    rules,
    assumed: parts.assumed,
    verifier: v1,
    authorizer,
    judged: servedFromStore,
  });
}
