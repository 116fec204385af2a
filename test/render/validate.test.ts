/**
 * The render stage's checks of a written value: the contract's REQUIRED
 * fields and a mapping's required oneofs, which no mapping restates in zod.
 */
import { describe, expect, it } from 'vitest';
import { validate } from '../../src/render/validate.ts';
import identities from '../../mappings/identities.ts';
import { invalidOn } from '../support/invalid-argument.ts';

const claimMatch = { issuer: 'https://i', subject: 's' };

describe('validate: the contract says what is required', () => {
  it('refuses a REQUIRED field absent or empty, and accepts it set', () => {
    invalidOn('name', () => validate(identities, { claimMatch }));
    invalidOn('name', () => validate(identities, { name: '', claimMatch }));
    expect(() => validate(identities, { name: 'ci-bot', claimMatch })).not.toThrow();
  });

  it("checks a message's REQUIRED fields only where the message is set", () => {
    invalidOn('staticKeys.issuerKeys', () => validate(identities, { name: 'ci-bot', staticKeys: { issuer: 'https://i', subject: 's' } }));
    expect(() => validate(identities, { name: 'ci-bot', staticKeys: { issuer: 'https://i', subject: 's', issuerKeys: '{}' } })).not.toThrow();
  });

  it('needs exactly one member of a required oneof, the members being the contract’s', () => {
    invalidOn('claimMatch', () => validate(identities, { name: 'ci-bot' }));
    invalidOn('claimMatch', () => validate(identities, { name: 'ci-bot', claimMatch, servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED' }));
    invalidOn('claimMatch.issuer', () => validate(identities, { name: 'ci-bot', claimMatch: { subject: 's' } }));
  });

  it('reports only the masked paths of an update', () => {
    expect(() => validate(identities, { claimMatch }, ['description'])).not.toThrow();
    invalidOn('name', () => validate(identities, { claimMatch }, ['name']));
  });
});
