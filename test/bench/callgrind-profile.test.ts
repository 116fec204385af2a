/**
 * bench:instructions --stages reads a callgrind dump per function (bench/lib/callgrind-profile.ts) and
 * names V8's compiled code from Node's perf map; each instruction is counted once, at the script that caused it.
 */
import { describe, expect, it } from 'vitest';
import { functionCosts, inclusive, ownCosts, perfMapNamer, stageCosts } from '../../bench/lib/callgrind-profile.ts';
import { helperKinds } from '../../bench/lib/get-stages.ts';

/** A dump as callgrind 3.19 writes it (compressed names, a call's inclusive cost on the line after `calls=`); counts made up. */
const DUMP = [
  'events: Ir',
  'fn=(1) 0x0000000000001010',
  '0 100',
  'cfn=(2) Builtins_CallFunction',
  'calls=1 0',
  '0 500',
  'cfn=(3) v8::JsonParse',
  'calls=2 0',
  '0 70',
  'fn=(2)',
  '0 10',
  "cfn=(4) 0x0000000000002000'2",
  'calls=1 0',
  '0 490',
  "fn=(4)",
  '0 490',
  'fn=(3)',
  '0 70',
  'totals: 1230',
].join('\n');
const MAP = ['1000 100 JS:*handle file:///x/a.js:1:1', '2000 10 JS:*render file:///x/b.js:1:1'].join('\n');

describe('functionCosts', () => {
  it('reads self and inclusive costs, naming addresses inside a compiled function by the perf map', () => {
    const costs = functionCosts(DUMP, perfMapNamer(MAP));
    const handle = costs.get('JS:*handle file:///x/a.js:1:1')!;
    expect(handle.self).toBe(100);
    expect(inclusive(handle)).toBe(670);
    expect(costs.get('JS:*render file:///x/b.js:1:1')!.self).toBe(490);
  });

  it('leaves an address outside every compiled function as it is', () => {
    expect(perfMapNamer(MAP)('0x0000000000003000')).toBe('0x0000000000003000');
  });
});

describe('ownCosts and stageCosts', () => {
  it('charges native code to the script that called it, less the script it called back', () => {
    const own = ownCosts(functionCosts(DUMP, perfMapNamer(MAP)));
    // handle: itself 100, JSON parsing 70, and the call builtin's own 10 (the 490 it ran is render's).
    expect(own.get('JS:*handle file:///x/a.js:1:1')).toBeCloseTo(180);
    expect(own.get('JS:*render file:///x/b.js:1:1')).toBeCloseTo(490);
    const stages = stageCosts(own, [{ stage: 'render', match: /b\.js/ }]);
    expect(Object.fromEntries(stages)).toEqual({ render: 490, 'other script': expect.closeTo(180) });
  });
});

describe('helperKinds', () => {
  /** A helper thread's dump: a compile job, a marking job (each with work of its own below it), and work of neither. */
  const HELPER = [
    'events: Ir',
    'fn=(1) v8::platform::DefaultJobWorker::Run()',
    '0 5',
    'cfn=(2) v8::internal::OptimizingCompileTaskExecutor::CompileTask::Run(v8::JobDelegate*)',
    'calls=1 0',
    '0 300',
    'cfn=(3) v8::internal::ConcurrentMarking::JobTaskMajor::Run(v8::JobDelegate*)',
    'calls=1 0',
    '0 200',
    'fn=(2)',
    '0 100',
    'cfn=(4) v8::internal::compiler::turboshaft::OptimizePhase::Run(v8::internal::compiler::turboshaft::PipelineData*, v8::internal::Zone*)',
    'calls=1 0',
    '0 200',
    'fn=(4)',
    '0 200',
    'fn=(3)',
    '0 200',
    'totals: 510',
  ].join('\n');

  it('tells a helper thread\'s work by the job it ran under, the rest as other, adding up to its total', () => {
    expect(Object.fromEntries(helperKinds(functionCosts(HELPER), 510))).toEqual({
      "V8's other threads: optimising compiles (TurboFan, Maglev, Sparkplug)": 300,
      "V8's other threads: garbage collection (marking, sweeping, scavenges, evacuation)": 200,
      "V8's other threads: other": 10,
    });
  });
});
