/**
 * A benchmark child stops cleanly on SIGTERM/SIGINT, and also when its parent
 * dies without signalling: the parent holds our stdin open, so stdin ending
 * means nobody is left to stop us.
 */
export function stopWithParent(close: () => Promise<void>): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
}
