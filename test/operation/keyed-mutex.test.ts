import { describe, it, expect } from 'vitest';
import { KeyedMutex } from '../../src/operation/keyed-mutex.ts';

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every queued microtask (and a macrotask turn) run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('KeyedMutex', () => {
  it('runs work for the same key one after another, in call order', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const runs = gates.map((gate, i) =>
      mutex.run('k', async () => {
        log.push(`start ${i}`);
        await gate.promise;
        log.push(`end ${i}`);
        return i;
      }),
    );

    await settle();
    expect(log).toEqual(['start 0']); // 1 and 2 wait although 0 has not finished
    // Release out of order: 2 and 1 are released first, but must not start before 0 ends.
    gates[2]!.resolve();
    gates[1]!.resolve();
    await settle();
    expect(log).toEqual(['start 0']);
    gates[0]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('never has two runs of one key in flight at once', async () => {
    const mutex = new KeyedMutex();
    let inFlight = 0;
    let maxInFlight = 0;
    const runs = Array.from({ length: 20 }, (_, i) =>
      mutex.run('same', async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        for (let t = 0; t < (i % 3) + 1; t++) await settle();
        inFlight--;
      }),
    );
    await Promise.all(runs);
    expect(maxInFlight).toBe(1);
  });

  it('prevents lost updates in a read-modify-write', async () => {
    const mutex = new KeyedMutex();
    const store = { value: 0 };
    await Promise.all(Array.from({ length: 25 }, () =>
      mutex.run('counter', async () => {
        const read = store.value;
        await settle();
        store.value = read + 1;
      }),
    ));
    expect(store.value).toBe(25);
  });

  it('runs different keys concurrently', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const a = deferred();
    const b = deferred();
    const runA = mutex.run('a', async () => {
      log.push('start a');
      await a.promise;
      log.push('end a');
    });
    const runB = mutex.run('b', async () => {
      log.push('start b');
      await b.promise;
      log.push('end b');
    });
    await settle();
    expect(log).toEqual(['start a', 'start b']); // b started while a is still running
    b.resolve();
    await runB;
    expect(log).toEqual(['start a', 'start b', 'end b']); // b finished first, a unaffected
    a.resolve();
    await runA;
  });

  it('passes the work\'s result and rejection through to the caller', async () => {
    const mutex = new KeyedMutex();
    await expect(mutex.run('k', async () => 'value')).resolves.toBe('value');
    const failure = new Error('v1 said no');
    await expect(mutex.run('k', async () => { throw failure; })).rejects.toBe(failure);
  });

  it('a rejected run does not block the next run of the same key', async () => {
    const mutex = new KeyedMutex();
    const gate = deferred();
    const log: string[] = [];
    const failing = mutex.run('k', async () => {
      log.push('first');
      await gate.promise;
      throw new Error('boom');
    });
    const next = mutex.run('k', async () => {
      log.push('second');
      return 'ok';
    });
    await settle();
    expect(log).toEqual(['first']);
    gate.resolve();
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
    expect(log).toEqual(['first', 'second']);
  });

  it('a synchronously throwing run does not block the key either', async () => {
    const mutex = new KeyedMutex();
    await expect(mutex.run('k', () => { throw new Error('sync'); })).rejects.toThrow('sync');
    await expect(mutex.run('k', async () => 1)).resolves.toBe(1);
  });

  it('forgets keys once nothing is queued, so the map empties', async () => {
    const mutex = new KeyedMutex();
    expect(mutex.size).toBe(0);
    const gate = deferred();
    const runs = [
      mutex.run('a', () => gate.promise),
      mutex.run('a', async () => undefined),
      mutex.run('b', () => gate.promise),
      mutex.run('c', async () => { throw new Error('x'); }),
    ];
    expect(mutex.size).toBe(3);
    gate.resolve();
    await Promise.allSettled(runs);
    expect(mutex.size).toBe(0);
  });

  it('keeps a key while a later run is still queued behind a finished one', async () => {
    const mutex = new KeyedMutex();
    const first = deferred();
    const second = deferred();
    const run1 = mutex.run('k', () => first.promise);
    const run2 = mutex.run('k', () => second.promise);
    first.resolve();
    await run1;
    expect(mutex.size).toBe(1);
    second.resolve();
    await run2;
    expect(mutex.size).toBe(0);
  });

  it('still serialises a key after it was forgotten', async () => {
    const mutex = new KeyedMutex();
    await mutex.run('k', async () => undefined);
    expect(mutex.size).toBe(0);
    const log: string[] = [];
    const gate = deferred();
    const r1 = mutex.run('k', async () => { log.push('s1'); await gate.promise; log.push('e1'); });
    const r2 = mutex.run('k', async () => { log.push('s2'); });
    await settle();
    expect(log).toEqual(['s1']);
    gate.resolve();
    await Promise.all([r1, r2]);
    expect(log).toEqual(['s1', 'e1', 's2']);
  });
});
