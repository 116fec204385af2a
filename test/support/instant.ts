/**
 * An RFC 3339 timestamp as nanoseconds since the epoch, exactly. protojson prints 0, 3, 6 or 9
 * fractional digits, so two timestamps do not order by time as strings ("…05Z" sorts after "…05.1Z"),
 * and Date.parse drops everything under a millisecond.
 */
export function nanosOf(text: string): bigint {
  const match = /^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(text);
  if (!match) throw new Error(`not an RFC 3339 timestamp: ${JSON.stringify(text)}`);
  const seconds = Date.parse(`${match[1]}${match[3]}`);
  if (Number.isNaN(seconds)) throw new Error(`not an RFC 3339 timestamp: ${JSON.stringify(text)}`);
  return BigInt(seconds) * 1_000_000n + BigInt((match[2] ?? '').padEnd(9, '0'));
}
