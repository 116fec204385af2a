/** The slice of autocannon 8's programmatic API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    connections?: number;
    pipelining?: number;
    duration?: number;
    timeout?: number;
  }
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p99: number;
  }
  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    resets: number;
    non2xx: number;
    mismatches: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram;
    throughput: Histogram;
  }
  export interface Instance extends EventEmitter {
    stop(): void;
  }
  /** Node hands an ES module the CommonJS `module.exports` (this function) as its default export. */
  export default function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance;
}
