/** Shared assertion for the pure modules: `fn` must throw INVALID_ARGUMENT with one BadRequest violation on `field`. */
import { expect } from 'vitest';
import { ApiError } from '../../src/aip/errors.ts';

export function invalidOn(field: string, fn: () => unknown): ApiError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  if (thrown === undefined) throw new Error(`expected INVALID_ARGUMENT on ${field}, but nothing was thrown`);
  expect(thrown).toBeInstanceOf(ApiError);
  const error = thrown as ApiError;
  expect(error.code).toBe(3);
  expect(error.httpStatus).toBe(400);
  expect(error.message.startsWith('Invalid argument: ')).toBe(true);
  const badRequest = error.details.find((d) => d['@type'].endsWith('google.rpc.BadRequest'));
  const violations = badRequest?.fieldViolations as { field: string; description: string }[] | undefined;
  expect(violations?.map((v) => v.field)).toEqual([field]);
  expect(violations![0]!.description.length).toBeGreaterThan(0);
  return error;
}
