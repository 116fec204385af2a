/**
 * The workload's platform token (e.g. a projected Kubernetes service-account
 * token), read from its file afresh for every exchange: the kubelet rewrites
 * the file before the token expires, so a copy read at start would go stale.
 */
import { readFile } from 'node:fs/promises';

/** A JWT is a few KiB at most; a far larger file is not a token. */
const MAX_BYTES = 64 * 1024;

export class TokenFileError extends Error {}

export async function readTokenFile(path: string): Promise<string> {
  let text: string;
  try {
    const bytes = await readFile(path);
    if (bytes.length > MAX_BYTES) throw new TokenFileError(`the identity token file ${path} is larger than ${MAX_BYTES} bytes`);
    text = bytes.toString('utf8').trim();
  } catch (error) {
    if (error instanceof TokenFileError) throw error;
    // The error's code and path only: never the file's contents.
    throw new TokenFileError(`the identity token file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!text) throw new TokenFileError(`the identity token file ${path} is empty`);
  return text;
}
