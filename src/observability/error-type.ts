/**
 * OpenTelemetry's `error.type` for a failure that is not one of the gateway's
 * own errors: the error's code (`ECONNREFUSED`, `UND_ERR_SOCKET`, SQLSTATE
 * `23505`), else its class. Never its message, which may quote a value.
 */
export function failureType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^\w{1,40}$/.test(code)) return code;
  return (error as Error | null)?.constructor?.name ?? 'Error';
}
