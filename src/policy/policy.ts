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

export interface PolicyParts {
  /** The sidecar's workload identity, when --identity is set (identity/). */
  assumed?: AssumedIdentity | undefined;
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
  // Translate mode: v1 judges every token. What the store keeps there for v1's identities (their metadata)
  // names its caller by the token's `sub` as v1 will see it; v1 refuses a bad token on the call that checks
  // the identity exists.
  if (config.mode !== 'native') return (inner) => new Guard(inner, { rules, assumed: parts.assumed, unverifiedCallers: true });
  if (issuers.length === 0) return (inner) => new Guard(inner, { rules, unverifiedCallers: true });
  const [{ TokenVerifier }, { Authorizer }, { Grants }, { StoreGrants }] = await Promise.all([
    import('./token-verifier.ts'),
    import('./authorizer.ts'),
    import('./grants.ts'),
    import('./store-grants.ts'),
  ]);
  const grants = new StoreGrants(store, access);
  const shared = new Set(bindings.flatMap((binding) => (binding.mapping.native?.seed ?? []).map((row) => row.uid)));
  const verifier = new TokenVerifier({ issuers, audience: config.authAudience!, jwksCooldownMs: config.authJwksCooldownMs });
  const authorizer = new Authorizer(new Grants(grants, config.authGrantsCacheMs), shared);
  return (inner) => new Guard(inner, {
    rules,
    verifier,
    authorizer,
    bindOwner: (organisation, identity) => grants.bindCreator(organisation, identity),
  });
}
