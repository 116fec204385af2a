/**
 * google.api.http path templates as grpc-gateway matches them: `**` keeps
 * slashes and may be empty, verbs are compared before a `**` can swallow
 * them, literal templates rank first, and one table serves the GA version.
 */
import { describe, expect, it } from 'vitest';
import { byRank, compileTemplate, withoutTrailingSlashes } from '../../../src/transport/rest/path-template.ts';

const VERSIONS = ['v2beta1', 'v2'];
const match = (template: string, path: string) => compileTemplate(template, VERSIONS).match(path);

describe('path templates', () => {
  it('capture a whole UIDP, slashes included, percent-decoded', () => {
    expect(match('/iam/v2beta1/groups/{uid=**}', '/iam/v2beta1/groups/aa/bb/cc')).toEqual({ uid: 'aa/bb/cc' });
    expect(match('/iam/v2beta1/groups/{group.uid=**}', '/iam/v2beta1/groups/aa%2Fbb')).toEqual({ 'group.uid': 'aa/bb' });
  });

  it('let ** match no segment at all (POST /groups creates a root)', () => {
    expect(match('/iam/v2beta1/groups/{parent=**}', '/iam/v2beta1/groups')).toEqual({ parent: '' });
  });

  it('take a single segment for a plain variable', () => {
    expect(match('/x/v2beta1/things/{name}', '/x/v2beta1/things/a')).toEqual({ name: 'a' });
    expect(match('/x/v2beta1/things/{name}', '/x/v2beta1/things/a/b')).toBeUndefined();
  });

  it('compare the verb, and never let ** take a segment that carries one', () => {
    const verb = '/iam/v2beta1/groups/{group_uid=**}:requestGroupAccess';
    expect(match(verb, '/iam/v2beta1/groups/aa/bb:requestGroupAccess')).toEqual({ group_uid: 'aa/bb' });
    expect(match(verb, '/iam/v2beta1/groups/aa/bb:other')).toBeUndefined();
    expect(match('/iam/v2beta1/groups/{uid=**}', '/iam/v2beta1/groups/aa:requestGroupAccess')).toBeUndefined();
    expect(match('/iam/v2beta1/groups:lookupGroup', '/iam/v2beta1/groups:lookupGroup')).toEqual({});
    expect(match('/iam/v2beta1/groups:lookupGroup', '/iam/v2beta1/groups')).toBeUndefined();
  });

  it('serve the GA twin from the same template, and no other version', () => {
    expect(match('/iam/v2beta1/groups/{uid=**}', '/iam/v2/groups/aa')).toEqual({ uid: 'aa' });
    expect(match('/iam/v2beta1/groups/{uid=**}', '/iam/v1/groups/aa')).toBeUndefined();
  });

  it('rank literal templates first, then verbs, then the most literal segments', () => {
    const templates = [
      '/registry/v2beta1/repos/{uid=**}',
      '/registry/v2beta1/repos',
      '/registry/v2beta1/repos/{uid=**}/readme',
      '/iam/v2beta1/groups/{uid=**}:requestGroupAccess',
    ].map((t) => compileTemplate(t, VERSIONS));
    expect(templates.sort(byRank).map((t) => t.source)).toEqual([
      '/registry/v2beta1/repos',
      '/iam/v2beta1/groups/{uid=**}:requestGroupAccess',
      '/registry/v2beta1/repos/{uid=**}/readme',
      '/registry/v2beta1/repos/{uid=**}',
    ]);
  });
});

describe('withoutTrailingSlashes', () => {
  it('drops the slashes a path ends with, as /\/+$/ does, and nothing else', () => {
    for (const text of ['', '/', '//', 'a', 'a/', 'a//', '/a/b', '/a/b///', 'a/%2F', '%2F/']) {
      expect(withoutTrailingSlashes(text), text).toBe(text.replace(/\/+$/, ''));
    }
  });
});

