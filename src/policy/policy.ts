/**
 * The policy step as a configuration asks for it (guard.ts): what verifies
 * tokens, what authorizes, and whose identity the sidecar assumes. Each part
 * is loaded only where its mode uses it.
 */
import type { Binding } from '../contract/bindings.ts';
import type { Config } from '../config.ts';
import type { Store } from '../store/types.ts';
import { Guard, type AssumedIdentity, type Runner } from './guard.ts';
import { MethodRules } from './method-rules.ts';

export interface PolicyParts {
  /** The sidecar's workload identity, when --identity is set (identity/). */
  assumed?: AssumedIdentity | undefined;
}

export async function policyStep(
  config: Pick<Config, 'mode' | 'authIssuer' | 'authAudience' | 'authGrantsCacheMs' | 'authJwksCooldownMs'>,
  bindings: readonly Binding[],
  store: Store,
  inner: Runner,
  parts: PolicyParts = {},
): Promise<Runner> {
  const rules = new MethodRules(bindings);
  const issuers = config.authIssuer ?? [];
  // Translate mode: v1 judges every token. What the store keeps there for v1's identities (their metadata)
  // names its caller by the token's `sub` as v1 will see it; v1 refuses a bad token on the call that checks
  // the identity exists.
  if (config.mode !== 'native') return new Guard(inner, { rules, assumed: parts.assumed, unverifiedCallers: true });
  if (issuers.length === 0) return new Guard(inner, { rules, unverifiedCallers: true });
  const [{ TokenVerifier }, { Authorizer }, { Grants }, { StoreGrants, ownerRoleUid }, { EscalationCheck }] = await Promise.all([
    import('./token-verifier.ts'),
    import('./authorizer.ts'),
    import('./grants.ts'),
    import('./store-grants.ts'),
    import('./no-escalation.ts'),
  ]);
  const owner = ownerRoleUid();
  const access = new StoreGrants(store);
  const grants = new Grants(access, config.authGrantsCacheMs);
  const shared = new Set(bindings.flatMap((binding) => (binding.mapping.native?.seed ?? []).map((row) => row.uid)));
  return new Guard(inner, {
    rules,
    verifier: new TokenVerifier({ issuers, audience: config.authAudience!, jwksCooldownMs: config.authJwksCooldownMs }),
    authorizer: new Authorizer(grants, shared),
    escalation: new EscalationCheck(grants, access),
    bindOwner: (organisation, identity) => access.bind(organisation, identity, owner),
  });
}
