import { describe, it, expect } from 'vitest';
import { coveredBy, maskFromBody, maskPaths, parseMask, writablePaths, type MaskNode } from '../../src/aip/field-mask.ts';
import groups from '../../mappings/groups.ts';
import identities from '../../mappings/identities.ts';
import repos from '../../mappings/repos.ts';
import roleBindings from '../../mappings/role-bindings.ts';
import { invalidOn } from '../support/invalid-argument.ts';

const IDENTITY = identities.fields as Readonly<Record<string, MaskNode>>;
const GROUP = groups.fields as Readonly<Record<string, MaskNode>>;
const REPO = repos.fields as Readonly<Record<string, MaskNode>>;
const BINDING = roleBindings.fields as Readonly<Record<string, MaskNode>>;

describe('parseMask', () => {
  it('answers undefined when there is no mask', () => {
    expect(parseMask(undefined, IDENTITY)).toBeUndefined();
    expect(parseMask('', IDENTITY)).toBeUndefined();
    expect(parseMask(' , ,', IDENTITY)).toBeUndefined();
  });

  it('reads a comma list of top-level paths', () => {
    expect(parseMask('name,description', IDENTITY)).toEqual({ kind: 'paths', paths: ['name', 'description'] });
  });

  it('trims spaces around paths', () => {
    expect(parseMask(' name , description ', IDENTITY)).toEqual({ kind: 'paths', paths: ['name', 'description'] });
  });

  it('accepts snake_case and lowerCamel paths, answering lowerCamel', () => {
    expect(parseMask('claim_match', IDENTITY)).toEqual({ kind: 'paths', paths: ['claimMatch'] });
    expect(parseMask('claimMatch', IDENTITY)).toEqual({ kind: 'paths', paths: ['claimMatch'] });
    expect(parseMask('static_keys,aws_identity,service_principal', IDENTITY)).toEqual({
      kind: 'paths', paths: ['staticKeys', 'awsIdentity', 'servicePrincipal'],
    });
  });

  it('accepts nested paths such as claim_match.subject in either spelling', () => {
    expect(parseMask('claim_match.subject', IDENTITY)).toEqual({ kind: 'paths', paths: ['claimMatch.subject'] });
    expect(parseMask('claimMatch.subject', IDENTITY)).toEqual({ kind: 'paths', paths: ['claimMatch.subject'] });
    expect(parseMask('claim_match.subject_pattern', IDENTITY)).toEqual({ kind: 'paths', paths: ['claimMatch.subjectPattern'] });
    expect(parseMask('static_keys.expiration_time', IDENTITY)).toEqual({ kind: 'paths', paths: ['staticKeys.expirationTime'] });
    expect(parseMask('custom_overlay.accounts.run_as', REPO)).toEqual({ kind: 'paths', paths: ['customOverlay.accounts.runAs'] });
  });

  it('accepts a map or a repeated field as a whole', () => {
    expect(parseMask('claim_match.claims', IDENTITY)).toEqual({ kind: 'paths', paths: ['claimMatch.claims'] });
    expect(parseMask('static_keys.audiences', IDENTITY)).toEqual({ kind: 'paths', paths: ['staticKeys.audiences'] });
    expect(parseMask('custom_overlay.accounts.users', REPO)).toEqual({ kind: 'paths', paths: ['customOverlay.accounts.users'] });
  });

  it('names each path once even when repeated or spelled twice', () => {
    expect(parseMask('name,name', IDENTITY)).toEqual({ kind: 'paths', paths: ['name'] });
    expect(parseMask('claim_match,claimMatch', IDENTITY)).toEqual({ kind: 'paths', paths: ['claimMatch'] });
  });

  it('reads `*` as full replacement', () => {
    expect(parseMask('*', IDENTITY)).toEqual({ kind: 'all' });
    expect(parseMask(' * ', IDENTITY)).toEqual({ kind: 'all' });
  });

  it('refuses `*` combined with other paths', () => {
    invalidOn('update_mask', () => parseMask('*,name', IDENTITY));
    invalidOn('update_mask', () => parseMask('name,*', IDENTITY));
    invalidOn('update_mask', () => parseMask('*,*', IDENTITY));
  });

  it.each([
    ['unknown top-level field', 'colour'],
    ['unknown nested field', 'claim_match.colour'],
    ['path into a scalar', 'name.first'],
    ['path into a map', 'claim_match.claims.sub'],
    ['path into a repeated message', 'custom_overlay.accounts.users.username'],
    ['wrong case', 'Name'],
    ['empty segment', 'claim_match..subject'],
    ['v1 name of a renamed field', 'static'],
    ['v1 name of a renamed nested field', 'static_keys.expiration'],
  ])('refuses an unknown path: %s (%s)', (_label, mask) => {
    const e = invalidOn('update_mask', () => parseMask(mask, mask.startsWith('custom') ? REPO : IDENTITY));
    expect(e.message).toContain(mask);
  });

  it('refuses an unknown path even next to valid ones', () => {
    invalidOn('update_mask', () => parseMask('name,colour', IDENTITY));
  });

  it('drops output-only paths instead of refusing them', () => {
    expect(parseMask('uid,name,create_time,update_time,last_seen_time,email', IDENTITY)).toEqual({ kind: 'paths', paths: ['name'] });
    expect(parseMask('resource_limits', GROUP)).toEqual({ kind: 'paths', paths: [] });
  });

  it('drops paths inside an output-only message', () => {
    expect(parseMask('identity.name,role_uid', BINDING)).toEqual({ kind: 'paths', paths: ['roleUid'] });
  });

  it('reads paths of sync_config, whose JSON name is snake_case too', () => {
    // sync_config is both the proto and the JSON name (grpc-gateway's runtime and chainguard-dev/sdk: proto/platform/registry/v1/registry.platform.proto); it must not be camelised away.
    expect(parseMask('sync_config.source', REPO)).toEqual({ kind: 'paths', paths: ['sync_config.source'] });
    expect(parseMask('sync_config', REPO)).toEqual({ kind: 'paths', paths: ['sync_config'] });
    // and its output-only members are dropped
    expect(parseMask('sync_config.unique_tags,sync_config.expiration_time', REPO)).toEqual({ kind: 'paths', paths: [] });
  });
});

describe('maskFromBody', () => {
  it('answers an empty mask for an empty body', () => {
    expect(maskFromBody({}, IDENTITY)).toEqual({ kind: 'paths', paths: [] });
  });

  it('lists every top-level key present, including explicitly empty values', () => {
    expect(maskFromBody({ name: 'n', description: '' }, IDENTITY)).toEqual({ kind: 'paths', paths: ['name', 'description'] });
    expect(maskFromBody({ verified: false }, GROUP)).toEqual({ kind: 'paths', paths: ['verified'] });
  });

  it('recurses into singular sub-messages', () => {
    expect(maskFromBody({ claimMatch: { subject: 's', issuer: 'i' } }, IDENTITY)).toEqual({
      kind: 'paths', paths: ['claimMatch.subject', 'claimMatch.issuer'],
    });
    expect(maskFromBody({ customOverlay: { accounts: { runAs: '65532' } } }, REPO)).toEqual({
      kind: 'paths', paths: ['customOverlay.accounts.runAs'],
    });
  });

  it('takes an empty or null sub-message as the whole field', () => {
    expect(maskFromBody({ claimMatch: {} }, IDENTITY)).toEqual({ kind: 'paths', paths: ['claimMatch'] });
    expect(maskFromBody({ staticKeys: null }, IDENTITY)).toEqual({ kind: 'paths', paths: ['staticKeys'] });
  });

  it('stops at maps', () => {
    expect(maskFromBody({ claimMatch: { claims: { sub: 'x', aud: 'y' } } }, IDENTITY)).toEqual({ kind: 'paths', paths: ['claimMatch.claims'] });
    expect(maskFromBody({ customOverlay: { environment: { A: '1' } } }, REPO)).toEqual({ kind: 'paths', paths: ['customOverlay.environment'] });
  });

  it('stops at repeated fields, scalar or message', () => {
    expect(maskFromBody({ staticKeys: { audiences: ['a'] } }, IDENTITY)).toEqual({ kind: 'paths', paths: ['staticKeys.audiences'] });
    expect(maskFromBody({ customOverlay: { accounts: { users: [{ username: 'u', bogus: 1 }] } } }, REPO)).toEqual({
      kind: 'paths', paths: ['customOverlay.accounts.users'],
    });
    expect(maskFromBody({ bundles: [] }, REPO)).toEqual({ kind: 'paths', paths: ['bundles'] });
  });

  it('keeps the snake_case sync_config key as is', () => {
    expect(maskFromBody({ sync_config: { source: 's' } }, REPO)).toEqual({ kind: 'paths', paths: ['sync_config.source'] });
  });

  it('refuses an unknown key, naming its path', () => {
    const e = invalidOn('colour', () => maskFromBody({ name: 'n', colour: 'red' }, IDENTITY));
    expect(e.message).toContain('could not find field');
    invalidOn('claimMatch.colour', () => maskFromBody({ claimMatch: { colour: 'red' } }, IDENTITY));
  });

  it('refuses a key sent under its proto name (the body must already be lowerCamel)', () => {
    invalidOn('claim_match', () => maskFromBody({ claim_match: { subject: 's' } }, IDENTITY));
  });

  it('drops output-only keys, at the top and nested', () => {
    expect(maskFromBody({ uid: 'x', name: 'n', createTime: 't', updateTime: 't', lastSeenTime: 't' }, IDENTITY)).toEqual({
      kind: 'paths', paths: ['name'],
    });
    expect(maskFromBody({ resourceLimits: { clusters: 1 } }, GROUP)).toEqual({ kind: 'paths', paths: [] });
    expect(maskFromBody({ sync_config: { source: 's', uniqueTags: true, expirationTime: 't', gracePeriod: true } }, REPO)).toEqual({
      kind: 'paths', paths: ['sync_config.source'],
    });
    expect(maskFromBody({ identity: { uid: 'x' }, roleUid: 'r' }, BINDING)).toEqual({ kind: 'paths', paths: ['roleUid'] });
  });
});

describe('writablePaths and maskPaths', () => {
  it('`*` means every writable top-level field', () => {
    expect(writablePaths(GROUP)).toEqual(['name', 'description', 'verified', 'kind']);
    expect(maskPaths({ kind: 'all' }, BINDING)).toEqual(['identityUid', 'roleUid']);
    // In the contract's field order.
    expect(writablePaths(IDENTITY)).toEqual(['name', 'description', 'company', 'claimMatch', 'staticKeys', 'awsIdentity', 'servicePrincipal']);
  });

  it('a paths mask is answered as is', () => {
    expect(maskPaths({ kind: 'paths', paths: ['name', 'claimMatch.subject'] }, IDENTITY)).toEqual(['name', 'claimMatch.subject']);
  });
});

describe('coveredBy', () => {
  it('covers the path itself', () => {
    expect(coveredBy('name', ['name'])).toBe(true);
  });

  it('covers paths inside a masked message', () => {
    expect(coveredBy('claimMatch.subject', ['claimMatch'])).toBe(true);
    expect(coveredBy('a.b.c', ['a'])).toBe(true);
  });

  it('covers a message when one of its paths is masked (its rules concern the masked child)', () => {
    expect(coveredBy('claimMatch', ['claimMatch.subject'])).toBe(true);
  });

  it('does not cover siblings or prefixes that are not path segments', () => {
    expect(coveredBy('description', ['name'])).toBe(false);
    expect(coveredBy('claimMatch.issuer', ['claimMatch.subject'])).toBe(false);
    expect(coveredBy('names', ['name'])).toBe(false);
    expect(coveredBy('name', ['names'])).toBe(false);
    expect(coveredBy('claimMatchX.subject', ['claimMatch'])).toBe(false);
  });

  it('covers nothing with an empty mask', () => {
    expect(coveredBy('name', [])).toBe(false);
  });
});

describe('Object.prototype names are no fields', () => {
  const INHERITED = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'];

  it('refuses each as a mask path, top-level and nested, alone or beside a real path', () => {
    for (const name of INHERITED) {
      for (const mask of [name, `claimMatch.${name}`, `claim_match.${name}`, `name,${name}`, `${name}.issuer`]) {
        expect(invalidOn('update_mask', () => parseMask(mask, IDENTITY)).message).toContain('unknown field path');
      }
      invalidOn('update_mask', () => parseMask(name, GROUP));
    }
  });

  it('refuses each as a key of a body-derived mask, top-level and nested', () => {
    for (const name of INHERITED) {
      invalidOn(name, () => maskFromBody(JSON.parse(`{"${name}": {"issuer": "x"}}`), IDENTITY));
      invalidOn(`claimMatch.${name}`, () => maskFromBody(JSON.parse(`{"claimMatch": {"${name}": "x"}}`), IDENTITY));
    }
  });

  it('does so on a schema with a null prototype as well', () => {
    const bare = Object.assign(Object.create(null) as Record<string, MaskNode>, { name: {} });
    expect(parseMask('name', bare)).toEqual({ kind: 'paths', paths: ['name'] });
    invalidOn('update_mask', () => parseMask('toString', bare));
  });
});
