import { describe, expect, it } from 'vitest';
import { isRpcPath } from '../../../src/transport/grpc/adapter.ts';

describe('which paths can be an RPC', () => {
  it('a dotted first segment: /package.Service/Method, with or without a query', () => {
    for (const path of ['/chainguard.platform.iam.v2beta1.GroupsService/GetGroup', '/grpc.health.v1.Health/Check', '/a.b/c', '/a.b/', '/x.y/M?connect=v1&encoding=json']) {
      expect(isRpcPath(path), path).toBe(true);
    }
  });

  it('REST routes, probes, metrics, the pass-through and odd paths are not', () => {
    for (const path of [undefined, '', '/', '/healthz', '/metrics', '/iam/v2beta1/groups', '/iam/v1/groups?id=a.b', '/iam/v2beta1/groups/a.b/c', '/.a/b', '/a./b', '/a.b', 'a.b/c', '//a.b/c']) {
      expect(isRpcPath(path), String(path)).toBe(false);
    }
  });
});
