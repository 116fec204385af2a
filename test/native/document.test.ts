/** Native documents: zero values as translate mode renders them, field order, output-only, input-only and secret fields. */
import { describe, expect, it } from 'vitest';
import type { FieldSpec } from '../../src/vocabulary/resource.ts';
import { renderV2 } from '../../src/translate/v1-row.ts';
import { normalize, zeroOf } from '../../src/vocabulary/document.ts';
import groups from '../../mappings/groups.ts';
import identities from '../../mappings/identities.ts';
import identityProviders from '../../mappings/identity-providers.ts';
import groupInvites from '../../mappings/group-invites.ts';
import repos from '../../mappings/repos.ts';

const FIELDS: Record<string, FieldSpec> = {
  uid: { outputOnly: true },
  name: {},
  count: { type: 'int64' },
  on: { type: 'bool' },
  when: { type: 'timestamp' },
  tags: { repeated: true },
  labels: { type: 'map' },
  nested: { fields: { a: {}, b: { type: 'int' } } },
  choiceA: { oneof: 'choice' },
  choiceB: { oneof: 'choice' },
  maybe: { optional: true },
  ttl: { inputOnly: true },
  secret: { secret: true },
};

describe('normalize', () => {
  it('fills every unset field with its zero value, leaves oneof members and optionals absent, in the mapping order', () => {
    const doc = normalize(FIELDS, { name: 'n' }, { keepOutputOnly: false });
    expect(doc).toEqual({ uid: '', name: 'n', count: '0', on: false, when: null, tags: [], labels: {}, nested: null, secret: '' });
    expect(Object.keys(doc)).toEqual(['uid', 'name', 'count', 'on', 'when', 'tags', 'labels', 'nested', 'secret']);
  });

  it('agrees with translate mode on zero values for every real mapping', () => {
    for (const mapping of [groups, identities, identityProviders, groupInvites, repos]) {
      const native = normalize(mapping.fields, {}, { keepOutputOnly: false, dropSecrets: true });
      const translate = renderV2(mapping.fields, {});
      for (const [key, value] of Object.entries(native)) {
        // `.`-sourced sub-messages render from the flat v1 row in translate mode; compare plain fields only.
        if (mapping.fields[key]?.v1 === '.') continue;
        expect([mapping.name, key, value]).toEqual([mapping.name, key, translate[key]]);
      }
    }
  });

  it('drops output-only values from requests but keeps them in stored documents', () => {
    expect(normalize(FIELDS, { uid: 'forged' }, { keepOutputOnly: false }).uid).toBe('');
    expect(normalize(FIELDS, { uid: 'kept' }, { keepOutputOnly: true }).uid).toBe('kept');
  });

  it('never keeps input-only fields, and leaves secrets out of responses only', () => {
    const stored = normalize(FIELDS, { ttl: '60s', secret: 's3' }, { keepOutputOnly: false });
    expect(stored).not.toHaveProperty('ttl');
    expect(stored.secret).toBe('s3');
    expect(normalize(FIELDS, stored, { keepOutputOnly: true, dropSecrets: true })).not.toHaveProperty('secret');
  });

  it('normalises nested messages, int64 as strings, timestamps to milliseconds, and a set oneof member', () => {
    const doc = normalize(FIELDS, {
      count: 12, when: '2024-05-06T07:08:09.123456+02:00', nested: { a: 'x', stray: 1 }, choiceB: 'b', maybe: 'm', unknownKey: 1,
    }, { keepOutputOnly: false });
    expect(doc).toMatchObject({ count: '12', when: '2024-05-06T05:08:09.123Z', nested: { a: 'x', b: 0 }, choiceB: 'b', maybe: 'm' });
    expect(doc).not.toHaveProperty('choiceA');
    expect(doc).not.toHaveProperty('unknownKey');
  });

  it('treats null as unset', () => {
    expect(normalize(FIELDS, { name: null, choiceA: null }, { keepOutputOnly: false })).toMatchObject({ name: '' });
    expect(normalize(FIELDS, { choiceA: null }, { keepOutputOnly: false })).not.toHaveProperty('choiceA');
  });
});

describe('zeroOf', () => {
  it('is undefined for oneof members and optionals, the enum zero for enums', () => {
    expect(zeroOf({ oneof: 'x' })).toBeUndefined();
    expect(zeroOf({ optional: true })).toBeUndefined();
    expect(zeroOf(groups.fields.kind!)).toBe('ORG_KIND_UNSPECIFIED');
  });
});
