/** PATCH on stored documents: masked paths, oneof displacement, kept secrets, immutable fields. */
import { describe, expect, it } from 'vitest';
import { mergeUpdate } from '../../src/render/merge.ts';

/** The merged document alone, as these cases read it. */
const applyUpdate = (...args: Parameters<typeof mergeUpdate>) => mergeUpdate(...args).document;
import identityProviders from '../../mappings/identity-providers.ts';
import identities from '../../mappings/identities.ts';
import { invalidOn } from '../support/invalid-argument.ts';

const idp = {
  name: 'sso', description: 'd', defaultRole: 'r',
  oidc: { issuer: 'https://i', clientId: 'c', clientSecret: 'hunter2', additionalScopes: [], groupsClaim: '', correlationRule: 'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID', pkceEnabled: false },
};

describe('applyUpdate', () => {
  it('changes only the masked paths; an absent masked field is cleared', () => {
    const merged = applyUpdate(identityProviders.fields, idp, { name: 'new', description: 'ignored' }, ['name']);
    expect(merged).toMatchObject({ name: 'new', description: 'd' });
    expect(applyUpdate(identityProviders.fields, idp, {}, ['description'])).not.toHaveProperty('description');
  });

  it('keeps a secret sent empty unless the mask names it', () => {
    const body = { oidc: { clientSecret: '' } };
    expect((applyUpdate(identityProviders.fields, idp, body, ['oidc.clientId', 'oidc']) as any).oidc.clientSecret).toBe('hunter2');
    expect((applyUpdate(identityProviders.fields, idp, body, ['oidc.clientSecret']) as any).oidc.clientSecret).toBe('');
    expect((applyUpdate(identityProviders.fields, idp, { oidc: { clientSecret: 'new' } }, ['oidc']) as any).oidc.clientSecret).toBe('new');
  });

  it('lets an immutable field be restated or left out, but not changed', () => {
    const restated = applyUpdate(identityProviders.fields, idp, { oidc: { ...idp.oidc } }, ['oidc']) as any;
    expect(restated.oidc.correlationRule).toBe('CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID');
    const left = applyUpdate(identityProviders.fields, idp, { oidc: { issuer: 'https://j', clientId: 'c' } }, ['oidc']) as any;
    expect(left.oidc).toMatchObject({ issuer: 'https://j', correlationRule: 'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID' });
    invalidOn('oidc.correlationRule', () => applyUpdate(identityProviders.fields, idp,
      { oidc: { correlationRule: 'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID' } }, ['oidc.correlationRule']));
  });

  it('setting another oneof member displaces the current one', () => {
    const current = { name: 'bot', claimMatch: { issuer: 'https://i', subject: 's' } };
    const merged = applyUpdate(identities.fields, current, { servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED' }, ['servicePrincipal']);
    expect(merged).toEqual({ name: 'bot', servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED' });
  });

  it('does not change the stored document', () => {
    const current = structuredClone(idp);
    applyUpdate(identityProviders.fields, current, { name: 'x' }, ['name']);
    expect(current).toEqual(idp);
  });
});
