/**
 * Resident memory of a process, from /proc: what a container's memory limit
 * counts. `rss` is now; `peak` is the most it has ever held (VmHWM), so a
 * process started fresh for one scenario reports that scenario's peak.
 */
import { readFileSync } from 'node:fs';

export interface Resident {
  rssBytes: number;
  peakBytes: number;
}

function field(status: string, name: string): number {
  const kib = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
  return kib === undefined ? Number.NaN : Number(kib) * 1024;
}

/** NaN for both where there is no /proc. */
export function resident(pid: number): Resident {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { rssBytes: field(status, 'VmRSS'), peakBytes: field(status, 'VmHWM') };
  } catch {
    return { rssBytes: Number.NaN, peakBytes: Number.NaN };
  }
}

export const MIB = 1024 * 1024;
