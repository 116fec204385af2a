/**
 * IdentityProviders (api-surface.md §5): children of a group, one OIDC
 * configuration each. v1 has no timestamps on this resource.
 */
import { newChildUid } from '../uidp.ts';
import { invalidArgument } from '../errors.ts';
import { CORRELATION_RULE } from '../messages.ts';
import { select, type ListFilter } from '../query.ts';
import { copy, enumValue, existing, requireName, Rows, store, type EnumInput } from '../records.ts';

export interface OidcFields {
  issuer?: string;
  clientId?: string;
  clientSecret?: string;
  additionalScopes?: string[];
  groupsClaim?: string;
  correlationRule?: EnumInput;
  pkceEnabled?: boolean;
}

export interface IdentityProviderFields {
  name: string;
  description?: string;
  defaultRole?: string;
  oidc?: OidcFields;
  /** Output only (identity_providers.platform.proto): accepted and ignored. */
  scim?: unknown;
}

export interface V1Oidc {
  issuer: string;
  clientId: string;
  /**
   * Decision: returned on every read. The proto marks it `debug_redact`, which
   * only keeps it out of redaction-aware log formatting; protojson still
   * marshals it. (v2 chose not to return it; that is v2's contract, not v1's.)
   */
  clientSecret: string;
  additionalScopes: string[];
  groupsClaim: string;
  correlationRule: string;
  pkceEnabled: boolean;
}

/**
 * `scim` is never stored, so it renders as `null`. Decision: the emulator
 * behaves like a server where SCIM provisioning is not deployed, which the
 * proto allows ("reported on reads when SCIM provisioning is deployed").
 */
export interface V1IdentityProvider {
  id: string;
  name: string;
  description: string;
  defaultRole: string;
  oidc: V1Oidc;
}

const SUB_RULE = 'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID';

/** The proto: an unset rule "is treated as" the sub rule. */
const effectiveRule = (rule: string): string => (rule === 'CORRELATION_RULE_UNSPECIFIED' ? SUB_RULE : rule);

/** Decision: an issuer must be an absolute http(s) URL, since it is where discovery is fetched from. */
function validIssuer(issuer: string | undefined): string {
  if (!issuer) throw invalidArgument('identity_provider.oidc.issuer: must not be empty');
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw invalidArgument('identity_provider.oidc.issuer: must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidArgument('identity_provider.oidc.issuer: must be an http(s) URL');
  return issuer;
}

export class IdentityProviderStore extends Rows<V1IdentityProvider> {
  #fields(fields: IdentityProviderFields): Omit<V1IdentityProvider, 'id'> {
    const name = requireName(fields.name, 'identity_provider');
    const defaultRole = fields.defaultRole ?? '';
    // Decision: a default role is optional in v1, but when named it must exist (it is a role-binding promise).
    if (defaultRole !== '' && !this.ctx.role(defaultRole)) {
      throw invalidArgument(`identity_provider.default_role: role ${JSON.stringify(defaultRole)} does not exist`);
    }
    // Decision: the `configuration` oneof must be set; OIDC is its only member, and issuer and client id are what make it usable.
    const oidc = fields.oidc;
    if (!oidc) throw invalidArgument('identity_provider.oidc: a configuration is required');
    if (!oidc.clientId) throw invalidArgument('identity_provider.oidc.client_id: must not be empty');
    return {
      name,
      description: fields.description ?? '',
      defaultRole,
      oidc: {
        issuer: validIssuer(oidc.issuer),
        clientId: oidc.clientId,
        clientSecret: oidc.clientSecret ?? '',
        additionalScopes: copy(oidc.additionalScopes ?? []),
        groupsClaim: oidc.groupsClaim ?? '',
        correlationRule: enumValue(CORRELATION_RULE, oidc.correlationRule, 'identity_provider.oidc.correlation_rule'),
        pkceEnabled: oidc.pkceEnabled ?? false,
      },
    };
  }

  create(parent: string, fields: IdentityProviderFields): V1IdentityProvider {
    const id = newChildUid(this.ctx.parentGroup(parent, 'parent_id'));
    return store(this.rows, { id, ...this.#fields(fields) });
  }

  /**
   * A whole replacement. Decision: that includes `clientSecret` — v1 has no
   * mask and returns the secret on reads, so a read-modify-write client echoes
   * it; an omitted or empty secret is stored empty.
   * Facts (OIDC.correlation_rule): immutable; restating it or leaving it unset
   * keeps the stored rule, changing it is refused (3).
   */
  update(id: string, fields: IdentityProviderFields): V1IdentityProvider {
    const current = existing(this.rows, id, 'identity provider');
    const next = this.#fields(fields);
    const requested = next.oidc.correlationRule;
    if (requested !== 'CORRELATION_RULE_UNSPECIFIED' && effectiveRule(requested) !== effectiveRule(current.oidc.correlationRule)) {
      throw invalidArgument('identity_provider.oidc.correlation_rule: is immutable; create a new identity provider to change it');
    }
    next.oidc.correlationRule = current.oidc.correlationRule;
    return store(this.rows, { id, ...next });
  }

  list(filter: ListFilter = {}): V1IdentityProvider[] {
    return select(this.rows, filter);
  }

  delete(id: string): void {
    this.remove(id, 'identity provider');
  }
}
