/**
 * The code before a change, runnable next to the current one: a detached git
 * worktree of `commit` in a fresh directory under the system temp dir (never
 * inside the repository), with the repository's node_modules symlinked in,
 * since a worktree has none of its own and installing would be slow and could
 * resolve other versions. Removed when the run ends, however it ends
 * (bench/lib/cleanup.ts); if even that is skipped (SIGKILL), the directory
 * stays under /tmp and `git worktree prune` clears the registration once it
 * is deleted.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from './cleanup.ts';

export interface Worktree {
  path: string;
  /** The full commit id checked out. */
  commit: string;
  remove(): void;
}

function git(repo: string, args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export function addWorktree(repo: string, commit: string): Worktree {
  const full = git(repo, ['rev-parse', '--verify', `${commit}^{commit}`]);
  const path = mkdtempSync(join(tmpdir(), 'v2gw-before-'));
  // Registered before `git worktree add`, so a failure half-way still removes what was made.
  const remove = onCleanup(() => {
    const modules = join(path, 'node_modules');
    // Unlink our symlink first, so nothing that deletes the worktree can reach the repository's node_modules.
    if (isSymlink(modules)) unlinkSync(modules);
    try {
      git(repo, ['worktree', 'remove', '--force', path]);
    } catch {
      // Not registered (add failed) or already gone: delete the directory and drop any stale registration.
      rmSync(path, { recursive: true, force: true });
      git(repo, ['worktree', 'prune']);
    }
  });
  git(repo, ['worktree', 'add', '--detach', path, full]);
  symlinkSync(join(repo, 'node_modules'), join(path, 'node_modules'), 'dir');
  return { path, commit: full, remove };
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
