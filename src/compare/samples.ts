/**
 * The differing pairs a report shows beside its counts: the most recent few
 * per method, so a person can see what differed, not only how often.
 */
export class Samples {
  readonly #perMethod: number;
  readonly #byMethod = new Map<string, unknown[]>();

  constructor(perMethod: number) {
    this.#perMethod = perMethod;
  }

  /** Whether samples are kept at all: a caller may skip making one (redacting both answers) when not. */
  get keeping(): boolean {
    return this.#perMethod > 0;
  }

  keep(method: string, sample: unknown): void {
    if (this.#perMethod <= 0) return;
    const list = this.#byMethod.get(method) ?? [];
    list.push(sample);
    if (list.length > this.#perMethod) list.shift();
    this.#byMethod.set(method, list);
  }

  get all(): ReadonlyMap<string, readonly unknown[]> {
    return this.#byMethod;
  }
}
