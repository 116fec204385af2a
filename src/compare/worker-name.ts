/**
 * The name of the thread live comparisons run on (off-thread.ts). Node gives it to the OS thread too
 * (/proc/<pid>/task/<tid>/comm), so an operator or a benchmark can find that thread, pin it or read its CPU.
 */
export const WORKER_NAME = 'v2gw-compare';
