/**
 * bench:soak's reading of its memory samples (bench/lib/soak-report.ts): where the gateway ended, whether
 * it was flat over the last minute, and the RSS per resource kept.
 */
import { describe, expect, it } from 'vitest';
import { bytesPerResource, gauge, samplesTable, soakVerdict, type Sample } from '../../bench/lib/soak-report.ts';

const MIB = 1024 * 1024;
const at = (atSeconds: number, mib: number): Sample => ({ atSeconds, rssBytes: mib * MIB, heapTotalBytes: Number.NaN, heapUsedBytes: Number.NaN, externalBytes: Number.NaN });

describe('soakVerdict', () => {
  it('calls a gateway flat that collected and grew back within the last minute', () => {
    const verdict = soakVerdict([at(0, 90), at(60, 150), at(70, 140), at(100, 146), at(120, 144)]);
    expect(verdict.endMib).toBe(144);
    expect(verdict.lastWindowGrowthMib).toBe(4);
    expect(verdict).toMatchObject({ flat: true, endMet: true });
  });

  it('calls a gateway still climbing over its last minute not flat, and one over 200 MiB not met', () => {
    const verdict = soakVerdict([at(0, 100), at(60, 190), at(90, 200), at(120, 212)]);
    expect(verdict.lastWindowGrowthMib).toBe(22);
    expect(verdict).toMatchObject({ flat: false, endMet: false });
  });

  it('refuses a soak with no sample', () => {
    expect(() => soakVerdict([])).toThrow(/no memory sample/);
  });
});

describe('bytesPerResource', () => {
  it('spreads the growth over the resources added', () => {
    expect(bytesPerResource(100 * MIB, 102 * MIB, 2048)).toBe(1024);
    expect(() => bytesPerResource(1, 2, 0)).toThrow(/no resource/);
  });
});

describe('gauge and samplesTable', () => {
  it('reads a gauge of Prometheus text, NaN when absent, and prints a row per sample', () => {
    const text = '# HELP nodejs_heap_size_total_bytes x\nnodejs_heap_size_total_bytes 31457280\nnodejs_heap_size_used_bytes 1';
    expect(gauge(text, 'nodejs_heap_size_total_bytes')).toBe(31457280);
    expect(gauge(text, 'nodejs_external_memory_bytes')).toBeNaN();
    expect(samplesTable([{ ...at(10, 120), heapTotalBytes: 30 * MIB }]).split('\n')[2]).toBe('| 10 | 120.0 | 30.0 |  |  |');
  });
});
