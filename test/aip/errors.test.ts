import { describe, it, expect } from 'vitest';
import {
  ApiError,
  badRequestDetail,
  boundedText,
  deadlineExceeded,
  domainForPath,
  failedPrecondition,
  internal,
  invalidArgument,
  invalidField,
  MAX_DETAIL_TEXT_BYTES,
  MAX_MESSAGE_BYTES,
  notFound,
  resourceExhausted,
  toAipBody,
  unauthenticated,
  unavailable,
} from '../../src/aip/errors.ts';
import { Code } from '../../src/rpc-status.ts';

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

describe('toAipBody', () => {
  it('renders a validation error: code 3, Invalid argument prefix, ErrorInfo first, then BadRequest', () => {
    const body = toAipBody(invalidField('name', 'is required'), 'iam.chainguard.dev');
    expect(body).toEqual({
      code: 3,
      message: 'Invalid argument: name: is required',
      details: [
        { '@type': ERROR_INFO, reason: 'INVALID_ARGUMENT', domain: 'iam.chainguard.dev' },
        { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'name', description: 'is required' }] },
      ],
    });
  });

  it('renders RESOURCE_NOT_EMPTY: code 9, Precondition failed prefix, PreconditionFailure after ErrorInfo', () => {
    const error = failedPrecondition([{ type: 'RESOURCE_NOT_EMPTY', subject: 'iam.chainguard.dev/Group/x', description: 'x still contains 2 repos' }]);
    const body = toAipBody(error, 'iam.chainguard.dev');
    expect(body.code).toBe(9);
    expect(body.message).toBe('Precondition failed: x still contains 2 repos');
    expect(body.details[0]).toEqual({ '@type': ERROR_INFO, reason: 'FAILED_PRECONDITION', domain: 'iam.chainguard.dev' });
    expect(body.details[1]).toEqual({
      '@type': 'type.googleapis.com/google.rpc.PreconditionFailure',
      violations: [{ type: 'RESOURCE_NOT_EMPTY', subject: 'iam.chainguard.dev/Group/x', description: 'x still contains 2 repos' }],
    });
    expect(body.details).toHaveLength(2);
  });

  it('uses the upper-snake code name as the ErrorInfo reason for every code', () => {
    for (const [name, code] of Object.entries(Code)) {
      if (code === 0) continue;
      const body = toAipBody(new ApiError(code, 'x'), 'registry.chainguard.dev');
      expect(body.code).toBe(code);
      expect(body.details[0]).toMatchObject({ '@type': ERROR_INFO, reason: name, domain: 'registry.chainguard.dev' });
      expect(body.details[0]!.reason).toMatch(/^[A-Z]+(?:_[A-Z]+)*$/);
    }
  });

  it('puts exactly one ErrorInfo first even when a detail already carries one', () => {
    const error = new ApiError(Code.NOT_FOUND, 'gone', [
      { '@type': ERROR_INFO, reason: 'SOMETHING_ELSE', domain: 'elsewhere' },
      { '@type': 'type.googleapis.com/google.rpc.ResourceInfo', resourceName: 'x' },
    ]);
    const body = toAipBody(error, 'iam.chainguard.dev');
    expect(body.details.filter((d) => d['@type'] === ERROR_INFO)).toHaveLength(1);
    expect(body.details[0]).toEqual({ '@type': ERROR_INFO, reason: 'NOT_FOUND', domain: 'iam.chainguard.dev' });
    expect(body.details[1]!['@type']).toBe('type.googleapis.com/google.rpc.ResourceInfo');
  });

  it('keeps the order of the other details', () => {
    const a = { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [] };
    const b = { '@type': 'type.googleapis.com/google.rpc.Help', links: [] };
    const body = toAipBody(new ApiError(Code.INVALID_ARGUMENT, 'x', [a, b]), 'iam.chainguard.dev');
    expect(body.details.slice(1)).toEqual([a, b]);
  });

  it('adds ErrorInfo metadata only when there is some', () => {
    const withMeta = toAipBody(new ApiError(Code.UNAVAILABLE, 'x', [], { backend: 'v1' }), 'iam.chainguard.dev');
    expect(withMeta.details[0]).toEqual({ '@type': ERROR_INFO, reason: 'UNAVAILABLE', domain: 'iam.chainguard.dev', metadata: { backend: 'v1' } });
    const emptyMeta = toAipBody(new ApiError(Code.UNAVAILABLE, 'x', [], {}), 'iam.chainguard.dev');
    expect('metadata' in emptyMeta.details[0]!).toBe(false);
    const noMeta = toAipBody(new ApiError(Code.UNAVAILABLE, 'x'), 'iam.chainguard.dev');
    expect('metadata' in noMeta.details[0]!).toBe(false);
  });

  it('does not mutate the error it renders', () => {
    const error = invalidField('name', 'is required');
    const before = structuredClone(error.details);
    toAipBody(error, 'iam.chainguard.dev');
    toAipBody(error, 'registry.chainguard.dev');
    expect(error.details).toEqual(before);
  });

  it('is JSON-serialisable as the wire body', () => {
    const body = toAipBody(invalidField('name', 'is required'), 'iam.chainguard.dev');
    expect(JSON.parse(JSON.stringify(body))).toEqual(body);
  });
});

describe('ApiError messages', () => {
  it('prefixes INVALID_ARGUMENT and FAILED_PRECONDITION as the spec fixes them', () => {
    expect(new ApiError(Code.INVALID_ARGUMENT, 'name: is required').message).toBe('Invalid argument: name: is required');
    expect(new ApiError(Code.FAILED_PRECONDITION, 'group is not empty').message).toBe('Precondition failed: group is not empty');
  });

  it('never doubles a prefix already present', () => {
    expect(new ApiError(Code.INVALID_ARGUMENT, 'Invalid argument: name: is required').message).toBe('Invalid argument: name: is required');
    expect(new ApiError(Code.FAILED_PRECONDITION, 'Precondition failed: busy').message).toBe('Precondition failed: busy');
    expect(new ApiError(Code.NOT_FOUND, 'Not found: x').message).toBe('Not found: x');
  });

  it('does not double the prefix when an error is re-wrapped from another\'s message', () => {
    const first = invalidField('name', 'is required');
    const again = new ApiError(first.code, first.message, first.details);
    expect(again.message).toBe('Invalid argument: name: is required');
    expect(toAipBody(again, 'iam.chainguard.dev').message).toBe('Invalid argument: name: is required');
  });

  it('is an Error with name ApiError', () => {
    const error = notFound('iam.chainguard.dev/Group', 'abc');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ApiError');
  });
});

describe('error helpers', () => {
  it('invalidArgument joins several violations and keeps them all in BadRequest', () => {
    const error = invalidArgument([
      { field: 'name', description: 'is required' },
      { field: 'claimMatch.issuer', description: 'must be a URL' },
    ]);
    expect(error.code).toBe(3);
    expect(error.message).toBe('Invalid argument: name: is required; claimMatch.issuer: must be a URL');
    expect(error.details).toEqual([badRequestDetail([
      { field: 'name', description: 'is required' },
      { field: 'claimMatch.issuer', description: 'must be a URL' },
    ])]);
  });

  it('notFound carries a ResourceInfo and maps to HTTP 404', () => {
    const error = notFound('iam.chainguard.dev/Group', 'abc');
    expect(error.code).toBe(5);
    expect(error.httpStatus).toBe(404);
    expect(error.message.startsWith('Not found: ')).toBe(true);
    expect(error.details[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ResourceInfo', resourceType: 'iam.chainguard.dev/Group', resourceName: 'abc' });
  });

  it('unavailable carries a RetryInfo delay as a Duration string', () => {
    expect(unavailable('v1 is down').details[0]).toEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' });
    expect(unavailable('v1 is down', 5).details[0]!.retryDelay).toBe('5s');
    expect(unavailable('x').httpStatus).toBe(503);
  });

  it('resourceExhausted carries a QuotaFailure and maps to 429', () => {
    const error = resourceExhausted('v1 calls per request', 'too many');
    expect(error.code).toBe(8);
    expect(error.httpStatus).toBe(429);
    expect(error.details[0]).toEqual({
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [{ subject: 'v1 calls per request', description: 'too many' }],
    });
  });

  it('maps codes to the grpc-gateway HTTP statuses', () => {
    expect(invalidField('a', 'b').httpStatus).toBe(400);
    expect(failedPrecondition([]).httpStatus).toBe(400);
    expect(unauthenticated('no token').httpStatus).toBe(401);
    expect(deadlineExceeded('slow').httpStatus).toBe(504);
    expect(internal().httpStatus).toBe(500);
    expect(new ApiError(Code.PERMISSION_DENIED, 'x').httpStatus).toBe(403);
    expect(new ApiError(Code.ALREADY_EXISTS, 'x').httpStatus).toBe(409);
    expect(new ApiError(Code.UNIMPLEMENTED, 'x').httpStatus).toBe(501);
  });
});

describe('domainForPath', () => {
  it.each([
    ['/iam/v2beta1/groups', 'iam.chainguard.dev'],
    ['/iam/v2beta1/roleBindings/abc/def', 'iam.chainguard.dev'],
    ['/iam', 'iam.chainguard.dev'],
    ['/registry/v2beta1/repos', 'registry.chainguard.dev'],
    ['/registry/v2beta1/tags?x=1', 'registry.chainguard.dev'],
    ['/registry', 'registry.chainguard.dev'],
    ['/vulnerabilities/v2beta1/advisories', 'vulnerabilities.chainguard.dev'],
    ['/vulnerabilities', 'vulnerabilities.chainguard.dev'],
  ])('%s → %s', (path, domain) => {
    expect(domainForPath(path)).toBe(domain);
  });

  it('falls back to the IAM domain for other paths', () => {
    expect(domainForPath('/')).toBe('iam.chainguard.dev');
    expect(domainForPath('')).toBe('iam.chainguard.dev');
    expect(domainForPath('/healthz')).toBe('iam.chainguard.dev');
  });

  it('matches whole segments only', () => {
    expect(domainForPath('/registryx/v2beta1/repos')).toBe('iam.chainguard.dev');
    expect(domainForPath('/foo/registry/v2beta1/repos')).toBe('iam.chainguard.dev');
  });
});

describe('bounded error text', () => {
  const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

  it('leaves short, well-formed text alone', () => {
    expect(boundedText('Invalid argument: name: too short', 1024)).toBe('Invalid argument: name: too short');
    expect(boundedText('é'.repeat(512), 1024)).toBe('é'.repeat(512));
  });

  it('cuts between code points, within the byte budget, and says so with …', () => {
    for (const unit of ['x', 'é', '日', '\u{1F600}']) {
      const cut = boundedText(unit.repeat(2_000), 1024);
      expect(bytes(cut)).toBeLessThanOrEqual(1024);
      expect(bytes(cut)).toBeGreaterThan(1024 - 7);
      expect(cut.endsWith('…')).toBe(true);
      expect(cut.isWellFormed()).toBe(true);
      expect(cut.slice(0, -1)).toBe(unit.repeat([...cut.slice(0, -1)].length));
    }
  });

  it('replaces a lone surrogate (a parser\'s cut through an emoji) with U+FFFD', () => {
    expect(boundedText('token \uD83D, "x"', 1024)).toBe('token \uFFFD, "x"');
    expect(boundedText('\uDE00', 1024)).toBe('\uFFFD');
  });

  it('bounds what toAipBody renders: the message and every detail string, not the detail types', () => {
    const long = 'q'.repeat(20_000);
    const body = toAipBody(invalidField(long, long), 'iam.chainguard.dev', 'r'.repeat(300));
    expect(bytes(body.message)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    const violation = (body.details[1] as unknown as { fieldViolations: { field: string; description: string }[] }).fieldViolations[0]!;
    expect(bytes(violation.field)).toBeLessThanOrEqual(MAX_DETAIL_TEXT_BYTES);
    expect(bytes(violation.description)).toBeLessThanOrEqual(MAX_DETAIL_TEXT_BYTES);
    expect(body.details.map((d) => d['@type'])).toEqual([ERROR_INFO, 'type.googleapis.com/google.rpc.BadRequest']);
    expect((body.details[0]!.metadata as { requestId: string }).requestId).toBe(`${'r'.repeat(253)}…`);
  });
});

describe('ApiError', () => {
  it('is an answer, not a fault: it captures no stack, and leaves the stack limit of other errors as it was', () => {
    const limit = Error.stackTraceLimit;
    const error = new ApiError(Code.NOT_FOUND, 'group "x" not found');
    expect(error.stack).not.toMatch(/\n\s+at /);
    expect(error.message).toBe('Not found: group "x" not found');
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('a fault').stack).toMatch(/\n\s+at /);
  });
});
