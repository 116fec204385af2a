/** Reading a gateway's comparison report in tests, and waiting for comparisons under way to end. */
import { expect } from 'vitest';

export async function reportOf(url: string, headers: Record<string, string> = {}): Promise<any> {
  const reply = await fetch(`${url}/_gateway/compare/report`, { headers });
  expect(reply.status).toBe(200);
  return reply.json();
}

export function methodOf(report: any, method: string): any {
  return report.methods.find((m: any) => m.method === method);
}

/** Waits until the method's comparisons (compared + errors) reach `count`; answers its report entry. */
export async function settled(url: string, method: string, count: number, headers: Record<string, string> = {}): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const m = methodOf(await reportOf(url, headers), method);
    if (m && m.compared + m.errors >= count) return m;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${method}: fewer than ${count} comparisons settled`);
}
