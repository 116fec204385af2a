/**
 * Last words of a benchmark run: whatever it set up outside itself (child
 * processes, a git worktree) is torn down however the run ends: normal exit,
 * an uncaught error, Ctrl-C or SIGTERM. Cleanups run synchronously in
 * registration order reversed (the worktree was made before the processes
 * that run from it), once each; only SIGKILL escapes them.
 */
const cleanups: Array<() => void> = [];

/** Registers `fn`; the returned function runs it now (once) instead of at exit. */
export function onCleanup(fn: () => void): () => void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    const at = cleanups.indexOf(once);
    if (at >= 0) cleanups.splice(at, 1);
    try {
      fn();
    } catch (error) {
      process.stderr.write(`bench: cleanup failed: ${(error as Error).message}\n`);
    }
  };
  cleanups.push(once);
  return once;
}

function runAll(): void {
  while (cleanups.length > 0) cleanups[cleanups.length - 1]!();
}

process.on('exit', runAll);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    process.stderr.write(`bench: ${signal}, stopping\n`);
    process.exit(130); // 'exit' runs the cleanups
  });
}
