/**
 * `--capture <file>`: each v2 call appended as one JSON line — method, request
 * message (credentials redacted), protocol and time — for `npm run compare`
 * to replay. Written through one stream, in the background.
 */
import { createWriteStream, fchmodSync, openSync, type WriteStream } from 'node:fs';
import type { DescMessage } from '@bufbuild/protobuf';
import type { Json } from '../vocabulary/json.ts';
import { redact } from './redact.ts';

export interface CapturedCall {
  method: string;
  request: Json;
  protocol: string;
  at?: string;
}

export class Capture {
  readonly #out: WriteStream;

  constructor(path: string) {
    // Other callers' requests: readable by the gateway's own user only, a file made before included.
    const fd = openSync(path, 'a', 0o600);
    fchmodSync(fd, 0o600);
    this.#out = createWriteStream(path, { fd });
    // A full disk must not take the gateway down: the capture stops, the answers go on.
    this.#out.on('error', () => {});
  }

  /** `input`: the method's request message, whose declared secrets are redacted. */
  write(call: CapturedCall, input?: DescMessage): void {
    this.#out.write(`${JSON.stringify({ method: call.method, request: redact(call.request, input), protocol: call.protocol, at: new Date().toISOString() })}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#out.end(resolve));
  }
}

/** The calls of a capture file's text; lines that are not calls are left out. */
export function readCapture(text: string): CapturedCall[] {
  const calls: CapturedCall[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const call = JSON.parse(line) as CapturedCall;
      if (typeof call.method === 'string' && call.request && typeof call.request === 'object') calls.push(call);
    } catch {
      // A torn last line (the gateway stopped mid-write) is skipped.
    }
  }
  return calls;
}
