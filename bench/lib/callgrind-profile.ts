/**
 * What a callgrind dump says per function: the instructions each executed itself (self) and with what
 * it called (inclusive), read from the dump's cost and call lines. Code V8 made at run time has no
 * symbol, so callgrind names it by address; a map Node writes with `--perf-basic-prof`
 * (`/tmp/perf-<pid>.map`: start, size, name per line) names it back, and every address inside one
 * compiled function is counted as that function. Pure, but for reading the files.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface FunctionCost {
  self: number;
  /** Instructions of the calls it made to other functions, each callee's inclusive cost as callgrind counted it. */
  callees: Map<string, number>;
}

/** Per function name: its self cost and its calls. Calls of a function to itself are left out (recursion counted once). */
export function functionCosts(dump: string, nameOf: (raw: string) => string = (raw) => raw): Map<string, FunctionCost> {
  const names = new Map<string, string>();
  // `fn=(12) name` declares id 12; a later `fn=(12)` refers to it.
  const resolve = (spec: string): string => {
    const match = /^\((\d+)\)(?:\s+(.*))?$/.exec(spec.trim());
    if (!match) return nameOf(spec.trim());
    const [, id, name] = match;
    if (name !== undefined) names.set(id!, nameOf(name));
    return names.get(id!) ?? `(${id})`;
  };
  const costs = new Map<string, FunctionCost>();
  const entry = (name: string): FunctionCost => {
    let cost = costs.get(name);
    if (!cost) costs.set(name, (cost = { self: 0, callees: new Map() }));
    return cost;
  };
  let current: FunctionCost | undefined;
  let currentName = '';
  let callee: string | undefined;
  let callCostNext = false;
  for (const line of dump.split('\n')) {
    if (line.startsWith('fn=')) {
      currentName = resolve(line.slice(3));
      current = entry(currentName);
    } else if (line.startsWith('cfn=')) {
      callee = resolve(line.slice(4));
    } else if (line.startsWith('calls=')) {
      callCostNext = true;
    } else if (current && /^[+\-*0-9]/.test(line)) {
      const ir = Number(line.trim().split(/\s+/)[1] ?? 0);
      if (callCostNext) {
        if (callee !== undefined && callee !== currentName) current.callees.set(callee, (current.callees.get(callee) ?? 0) + ir);
        callCostNext = false;
      } else {
        current.self += ir;
      }
    }
  }
  return costs;
}

/** Instructions of a function with everything it called. */
export function inclusive(cost: FunctionCost): number {
  let sum = cost.self;
  for (const ir of cost.callees.values()) sum += ir;
  return sum;
}

interface Mapped {
  start: number;
  end: number;
  name: string;
}

/** Names an address by the perf map's text (`start size name` per line, hex): the compiled function it falls in, else the address. */
export function perfMapNamer(map: string): (raw: string) => string {
  const entries: Mapped[] = [];
  for (const line of map.split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/i.exec(line);
    if (match) entries.push({ start: parseInt(match[1]!, 16), end: parseInt(match[1]!, 16) + parseInt(match[2]!, 16), name: match[3]! });
  }
  entries.sort((a, b) => a.start - b.start);
  return (raw) => {
    const address = /^0x([0-9a-f]+)(?:'\d+)?$/i.exec(raw);
    if (!address) return raw.replace(/'\d+$/, '');
    const at = parseInt(address[1]!, 16);
    let low = 0;
    let high = entries.length - 1;
    // The last entry starting at or before the address (V8 may reuse code space: later entries win ties).
    let found: Mapped | undefined;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (entries[mid]!.start <= at) {
        found = entries[mid];
        low = mid + 1;
      } else high = mid - 1;
    }
    return found && at < found.end ? found.name : raw;
  };
}

/** `functionCosts` of a dump file, JIT addresses named from the process's perf map when there is one. */
export function readProfile(dumpFile: string, perfMapFile?: string): Map<string, FunctionCost> {
  let namer: ((raw: string) => string) | undefined;
  try {
    if (perfMapFile) {
      const byAddress = perfMapNamer(readFileSync(perfMapFile, 'utf8'));
      namer = (raw) => sourceNamed(byAddress(raw));
    }
  } catch {
    namer = undefined;
  }
  return functionCosts(readFileSync(dumpFile, 'utf8'), namer);
}

const sourceMaps = new Map<string, SourceMap | undefined>();

/**
 * A perf-map name of built code (`JS:*name file:///…/dist/src/chunk-X.js:4:41615`) told by its source:
 * `name src/v1/client.ts:12` from the bundle's source map, or the name as it was (Node's own code, builtins).
 */
export function sourceNamed(name: string): string {
  const match = /^JS:\S?'?(\S*) (file:\/\/\S+\.js):(\d+):(\d+)$/.exec(name);
  if (!match) return name;
  const [, fn, url, line, column] = match;
  const file = fileURLToPath(url!);
  if (!sourceMaps.has(file)) {
    const mapFile = `${file}.map`;
    sourceMaps.set(file, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : undefined);
  }
  const found = sourceMaps.get(file)?.findEntry(Number(line) - 1, Number(column) - 1);
  if (!found || !('originalSource' in found)) return name;
  const source = found.originalSource.replace(/^.*?\/(src|bench|node_modules)\//, '$1/');
  return `${fn || '(anonymous)'} ${source}:${found.originalLine + 1}`;
}

/** Code that runs JavaScript (ours, Node's own, wasm): a perf-map name or a name told by its source. */
export function isScript(name: string): boolean {
  return name.startsWith('JS:') || /^\S+ (src|bench|node_modules)\/\S+:\d+$/.test(name);
}

/**
 * Each script function's own instructions: its self cost, plus what the native code it called (V8's
 * runtime and builtins, Node's C++, libc) executed on its behalf, less whatever of that native code
 * ran script again (a callback: counted at that script function instead). So every instruction of the
 * process is counted once, at the script function that caused it, or not at all (the event loop's own
 * turns, other threads). Calls between script functions are not added: each callee has its own cost.
 */
export function ownCosts(costs: Map<string, FunctionCost>): Map<string, number> {
  // The share of a native function's inclusive cost that is script it called back (or that its callees
  // did), found by iterating to a fixed point: native code calls itself round about (V8's call builtins).
  const natives = [...costs].filter(([name]) => !isScript(name)).map(([name, cost]) => ({ name, cost, total: inclusive(cost) }));
  const scriptShare = new Map<string, number>();
  for (let round = 0; round < 50; round++) {
    let moved = 0;
    for (const { name, cost, total } of natives) {
      let script = 0;
      for (const [callee, ir] of cost.callees) script += isScript(callee) ? ir : ir * (scriptShare.get(callee) ?? 0);
      const share = total === 0 ? 0 : Math.min(1, script / total);
      moved = Math.max(moved, Math.abs(share - (scriptShare.get(name) ?? 0)));
      scriptShare.set(name, share);
    }
    if (moved < 1e-6) break;
  }
  const own = new Map<string, number>();
  for (const [name, cost] of costs) {
    if (!isScript(name)) continue;
    let sum = cost.self;
    for (const [callee, ir] of cost.callees) if (!isScript(callee)) sum += ir * (1 - (scriptShare.get(callee) ?? 0));
    own.set(name, sum);
  }
  return own;
}

/** A stage of serving an answer, and the script it is made of: the first stage whose pattern a function's name matches. */
export interface Stage {
  stage: string;
  match: RegExp;
}

/** Instructions per stage (its functions' own costs summed), in the order the stages are given; `other script` for the rest. */
export function stageCosts(own: Map<string, number>, stages: readonly Stage[]): Map<string, number> {
  const sums = new Map<string, number>(stages.map(({ stage }) => [stage, 0]));
  sums.set('other script', 0);
  for (const [name, ir] of own) {
    const stage = stages.find(({ match }) => match.test(name))?.stage ?? 'other script';
    sums.set(stage, sums.get(stage)! + ir);
  }
  return sums;
}
