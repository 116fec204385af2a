/** A request message as the REST call a client would make of the candidate, from the method's google.api.http rule. */
import { describe, expect, it } from 'vitest';
import type { DescMethod } from '@bufbuild/protobuf';
import { contract } from '../../src/contract/registry.ts';
import { httpCall } from '../../src/compare/candidate-rest.ts';

const method = (name: string): DescMethod => contract.getService('chainguard.platform.iam.v2beta1.GroupsService')!.methods.find((m) => m.name === name)!;

describe('httpCall', () => {
  it('fills the path from the request, keeping the slashes of a UIDP, and sends nothing twice', () => {
    expect(httpCall(method('GetGroup'), { uid: 'a1/b2' })).toEqual({ verb: 'GET', path: '/iam/v2beta1/groups/a1/b2', body: undefined });
  });
  it('sends the rule\'s body field as the body and the rest as the query', () => {
    const call = httpCall(method('UpdateGroup'), { group: { uid: 'a1/b2', name: 'x' }, updateMask: 'name' });
    expect(call).toEqual({ verb: 'PATCH', path: '/iam/v2beta1/groups/a1/b2?updateMask=name', body: { name: 'x' } });
  });
  it('percent-encodes what a path segment cannot hold, and only that', () => {
    expect(httpCall(method('GetGroup'), { uid: 'a b/c?d#e/f_g-h~i' }).path).toBe('/iam/v2beta1/groups/a%20b/c%3Fd%23e/f_g-h~i');
  });
  it('leaves the request it was given as it was', () => {
    const request = { group: { uid: 'a1/b2', name: 'x' }, updateMask: 'name' };
    httpCall(method('UpdateGroup'), request);
    expect(request).toEqual({ group: { uid: 'a1/b2', name: 'x' }, updateMask: 'name' });
  });
  it('dots nested fields into the query and repeats repeated ones', () => {
    const call = httpCall(method('ListGroups'), { uidp: { childrenOf: 'a1' }, pageSize: 5, orderBy: 'name' });
    expect(call.verb).toBe('GET');
    expect(new URL(`http://x${call.path}`).searchParams.toString()).toBe('uidp.childrenOf=a1&pageSize=5&orderBy=name');
  });
});
