/**
 * The byte loop of list-body.ts's scan, as a WebAssembly module (src/v1/list-scan.wasm, compiled from
 * wasm/list-scan.ts by `npm run wasm`): a body is copied into the module's memory, and its strings,
 * values, rows and separators are skipped and checked there, as JSON.parse checks them. A list's bytes
 * are mostly short strings and keys, where a JavaScript loop pays its per-call and per-byte checks
 * (bounds, types) on every one; the module reads a string sixteen bytes at a time and matches keys
 * without leaving its loop. Positions given and answered are indices into the body.
 *
 * Where WebAssembly is not there (`node --jitless`) or the module cannot start, `listScan` is undefined
 * and list-body.ts parses every body whole: the same answers, at the whole parse's cost. A body it cannot
 * make room for (memory.grow refused) is parsed whole the same way.
 */
import { readFileSync } from 'node:fs';

/** Answered for an index where the bytes are not what JSON.parse accepts (or nest too deep): the whole parse decides. */
export const FAILED = -1;
/** separator's answer at anything but a comma or the closing byte. */
export const FAILED_SEPARATOR = -(2 ** 31);
/** rows' answers: the array ended (`next` is ~ its `]`), or the output is full and more rows follow. */
export const ENDED = 0;
export const MORE = 1;

/** Zero bytes after a body, where the module's loops stop (wasm/list-scan.ts, `at`). */
const SLACK = 16;
const PAGE = 65536;
/**
 * Memory past this, grown for a large body, is handed back after that body's scan by starting a fresh
 * instance: WebAssembly memory only grows, and one large list must not hold its size for good.
 */
export const KEPT_BYTES = 8 * 1024 * 1024;

/** The part of the WebAssembly API used here (the project's TypeScript libraries declare none of it). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

/** An exported constant of the module: its limits, and where each part of its memory starts. */
interface Constant {
  readonly value: number;
}

interface Exports {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  MAX_WANTED: Constant;
  MAX_NAME: Constant;
  LENGTHS: Constant;
  NAMES: Constant;
  OUT: Constant;
  INPUT: Constant;
  setWanted(count: number): void;
  setInput(length: number): void;
  rowsNext(): number;
  rowsWritten(): number;
  skipSpace(i: number): number;
  skipString(i: number): number;
  skipValue(i: number): number;
  separator(i: number, close: number): number;
  rows(i: number, most: number): number;
}

/** The module's scan of one body at a time (the scan is synchronous). */
export class ListScan {
  readonly #api: WebAssemblyApi;
  readonly #module: object;
  #x!: Exports;
  #ints!: Int32Array;
  #bytes!: Uint8Array;
  #input = 0;
  #out = 0;

  constructor(api: WebAssemblyApi, module: object) {
    this.#api = api;
    this.#module = module;
    this.#fresh();
  }

  #fresh(): void {
    this.#x = new this.#api.Instance(this.#module).exports as unknown as Exports;
    this.#input = this.#x.INPUT.value;
    this.#out = this.#x.OUT.value;
    this.#views();
  }

  #views(): void {
    const buffer = this.#x.memory.buffer;
    this.#ints = new Int32Array(buffer);
    this.#bytes = new Uint8Array(buffer);
  }

  /** Whether the module reads rows for these members' names (ASCII): few enough, none too long for its slots. */
  fits(names: readonly Uint8Array[]): boolean {
    const most = this.#x.MAX_NAME.value;
    return names.length <= this.#x.MAX_WANTED.value && names.every((name) => name.length <= most);
  }

  /** Copies `body` in and sets the members rows are read for (names that `fits`). */
  load(body: Uint8Array, names: readonly Uint8Array[]): void {
    const x = this.#x;
    const needed = this.#input + body.length + SLACK;
    if (needed > x.memory.buffer.byteLength) {
      x.memory.grow(Math.ceil((needed - x.memory.buffer.byteLength) / PAGE));
      this.#views();
    }
    this.#bytes.set(body, this.#input);
    this.#bytes.fill(0, this.#input + body.length, this.#input + body.length + SLACK);
    x.setInput(body.length);
    const lengths = x.LENGTHS.value / 4;
    const at = x.NAMES.value;
    const slot = x.MAX_NAME.value;
    for (let k = 0; k < names.length; k++) {
      this.#ints[lengths + k] = names[k]!.length;
      this.#bytes.set(names[k]!, at + k * slot);
    }
    x.setWanted(names.length);
  }

  /** The module's memory now, in bytes. */
  get memoryBytes(): number {
    return this.#x.memory.buffer.byteLength;
  }

  /** Lets go of a large body's memory (after its scan). */
  done(): void {
    if (this.#x.memory.buffer.byteLength > KEPT_BYTES) this.#fresh();
  }

  skipSpace(i: number): number {
    return this.#x.skipSpace(i);
  }

  /** Index just past the string at `i`, or FAILED. */
  skipString(i: number): number {
    return this.#x.skipString(i);
  }

  skipValue(i: number): number {
    return this.#x.skipValue(i);
  }

  /** After a member or an element: the next one's index, ~ the index of `close`, or FAILED_SEPARATOR. */
  separator(i: number, close: number): number {
    return this.#x.separator(i, close);
  }

  /**
   * Scans the rows (objects) of an array from its element at `i`, at most `most` of them: ENDED, MORE
   * or FAILED. The rows written are read with `written`, `next` and `records`.
   */
  rows(i: number, most: number): number {
    return this.#x.rows(i, most);
  }

  get written(): number {
    return this.#x.rowsWritten();
  }

  get next(): number {
    return this.#x.rowsNext();
  }

  /**
   * The rows written, as i32s from `recordAt()`: a row's span [start, end), then for each member the span
   * of its value (start -1 where the row lacks it; end negated for a string holding an escape).
   */
  get records(): Int32Array {
    return this.#ints;
  }

  recordAt(): number {
    return this.#out / 4;
  }
}

function loaded(): ListScan | undefined {
  const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (!api) return undefined;
  const bytes = readFileSync(new URL('./list-scan.wasm', import.meta.url));
  try {
    return new ListScan(api, new api.Module(bytes));
  } catch {
    // No address space for its memory (a `ulimit -v`), or a CPU without the SIMD it uses: lists are parsed whole.
    return undefined;
  }
}

export const listScan = loaded();
