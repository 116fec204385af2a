/**
 * A REST call's request message (src/contract/request-message.ts), as the comparison and the capture read
 * it: a call of path variables alone comes out as protobuf writes it, field order and all, and whatever
 * protobuf would refuse or read otherwise is still read through it.
 */
import { describe, expect, it } from 'vitest';
import type { DescMessage } from '@bufbuild/protobuf';
import { contract } from '../../src/contract/registry.ts';
import { canonicalRequest, requestFromRest } from '../../src/contract/request-message.ts';

const message = (name: string): DescMessage => contract.getMessage(name)!;
const GetGroup = message('chainguard.platform.iam.v2beta1.GetGroupRequest');
const GetSize = message('chainguard.platform.registry.v2beta1.GetSizeRequest');
const ListGroups = message('chainguard.platform.iam.v2beta1.ListGroupsRequest');
const call = (variables: Record<string, string>, query: Record<string, string> = {}) => ({ body: '', variables, query, rawBody: undefined });

describe('the request message of a REST call', () => {
  it('of path variables alone is what protobuf writes, in the message\'s field order', () => {
    expect(requestFromRest(GetGroup, call({ uid: 'ab/cd' }))).toEqual(canonicalRequest(GetGroup, { uid: 'ab/cd' }));
    // The route names digest after repo_uid; the variables come in any order, the message in its own.
    const size = requestFromRest(GetSize, call({ digest: 'sha256:00', repo_uid: 'ab/cd' }));
    expect(JSON.stringify(size)).toBe(JSON.stringify(canonicalRequest(GetSize, { repoUid: 'ab/cd', digest: 'sha256:00' })));
    expect(Object.keys(size)).toEqual(['repoUid', 'digest']);
  });

  it('with a query too, reads the query as before', () => {
    expect(requestFromRest(GetSize, call({ repo_uid: 'ab/cd', digest: 'sha256:00' }, { architecture: 'arm64' }))).toEqual({ repoUid: 'ab/cd', digest: 'sha256:00', architecture: 'arm64' });
    expect(requestFromRest(ListGroups, call({}, { page_size: '5' }))).toEqual({ pageSize: 5 });
  });

  it('refuses a variable protobuf cannot hold as text (a lone surrogate), naming its field', () => {
    expect(() => requestFromRest(GetGroup, call({ uid: 'ab\ud800' }))).toThrow(expect.objectContaining({ message: expect.stringContaining('uid') }));
  });

  it('leaves an empty variable out, as protobuf writes an unset text field', () => {
    expect(requestFromRest(GetGroup, call({ uid: '' }))).toEqual({});
  });
});
