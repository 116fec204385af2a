/**
 * The stages of serving an answer, told by the code that runs them (a function's source, as
 * bench/lib/callgrind-profile.ts names it), for `npm run bench:instructions -- --stages`: the first
 * stage whose pattern matches a function's name takes its own instructions. Node's own modules are
 * named `JS:<tier><name> node:<module>:<line>:<column>`; ours and our dependencies' by source path.
 */
import { inclusive, ownCosts, stageCosts, type FunctionCost, type Stage } from './callgrind-profile.ts';

export const STAGES: readonly Stage[] = [
  { stage: 'Node: HTTP/1.1, sockets, streams', match: / node:(_http_\w+|net|stream|internal\/(streams|stream_base_commons|http))[:/]/ },
  { stage: 'HTTP/2 server (Node)', match: / node:(http2|internal\/http2)[:/]/ },
  { stage: 'Fastify (routing, hooks, reply)', match: / node_modules\/(fastify|find-my-way|avvio|fast-json-stringify|@fastify)\/(?!lib\/logger)/ },
  { stage: 'REST transport (route, request, errors)', match: / src\/transport\/rest\/(routes|request|path-template|query-keys|errors)\.ts/ },
  { stage: 'gRPC transport (frames, call, status)', match: / src\/(transport\/grpc|rpc-status)\// },
  { stage: 'access log', match: / (src\/log\.ts|src\/transport\/rest\/(access-log|request-logger)\.ts|node_modules\/(pino|sonic-boom|fastify\/lib\/logger)|src\/transport\/request-id\.ts)/ },
  { stage: 'metrics', match: / (src\/transport\/rest\/http-metrics\.ts|src\/observability\/(metrics|keyed-metrics|error-type)\.ts|node_modules\/prom-client)/ },
  { stage: 'comparison (tap, queue, candidate request, diff)', match: / src\/compare\// },
  { stage: 'tracing (off: its checks)', match: / (src\/transport\/rest\/http-tracing\.ts|src\/observability\/)/ },
  { stage: 'policy (guard, caller)', match: / src\/(policy|identity)\// },
  { stage: 'operation (context, runner)', match: / src\/(operation|cancellation\.ts|aip)\// },
  { stage: 'engine (backend, row)', match: / src\/(engine|vocabulary|uidp\.ts)/ },
  { stage: 'v1 call (request, deadline, retry)', match: / src\/v1\/(client|exchange|read-retry|call-deadline|query-string|errors)\.ts/ },
  { stage: 'v1 call (undici, its llhttp in wasm)', match: / node_modules\/undici\/|^JS:wasm-function/ },
  // The list scan's WebAssembly module names its functions (its name section) `wasm/list-scan/<function>`.
  { stage: 'v1 answer parse', match: / src\/v1\/|^JS:wasm\/list-scan\// },
  { stage: 'render', match: / src\/render\// },
  { stage: 'encode (contract, protobuf)', match: / (src\/contract\/|node_modules\/@bufbuild\/)/ },
  { stage: 'server wiring (src/server.ts, hooks)', match: / src\/server\.ts/ },
  { stage: 'Node event loop (ticks, timers, events, buffers)', match: / node:/ },
];

/** The function a Node worker thread's work runs under (the comparison's, src/compare/worker.ts): its thread's dump holds it. */
export const WORKER_ROOT = /^node::worker::Worker::Run\b/;

/** Whether a thread's profile is a Node worker thread's. */
export function isWorkerThread(costs: Map<string, FunctionCost>): boolean {
  for (const name of costs.keys()) if (WORKER_ROOT.test(name)) return true;
  return false;
}

/** Stage rows of one thread's count: instructions per answer of each stage, then what no script caused on it (`native`). */
export function stageRows(costs: Map<string, FunctionCost>, total: number, answers: number, native = 'native, on the event loop and not caused by script (libuv, epoll, microtask turns)'): Array<[string, number]> {
  const byStage = stageCosts(ownCosts(costs), STAGES);
  let script = 0;
  for (const ir of byStage.values()) script += ir;
  const rows: Array<[string, number]> = [...byStage].map(([stage, ir]) => [stage, ir / answers]);
  rows.push([native, Math.max(0, total - script) / answers]);
  return rows;
}

/**
 * What V8's helper threads (its platform's workers, which every isolate of the process shares: the event
 * loop's and a Node worker thread's) ran, told by the job each piece of work ran under (its inclusive
 * cost): the optimising compilers' jobs, and the collector's.
 */
export const HELPER_KINDS: readonly Stage[] = [
  { stage: "V8's other threads: optimising compiles (TurboFan, Maglev, Sparkplug)", match: /^v8::internal::(OptimizingCompileTaskExecutor::CompileTask|maglev::MaglevConcurrentDispatcher::JobTask|baseline::ConcurrentBaselineCompiler::JobDispatcher)::Run\(/ },
  { stage: "V8's other threads: garbage collection (marking, sweeping, scavenges, evacuation)", match: /^v8::internal::(ConcurrentMarking::JobTask\w*|ScavengerCollector::JobTask|Sweeper::\w+|ArrayBufferSweeper::SweepingState::SweepingJob|PageEvacuationJob|PointersUpdatingJob|MarkCompactCollector::\w+)::Run\(/ },
];

/** A helper thread's instructions by kind (HELPER_KINDS), what none of them ran last as `other`. */
export function helperKinds(costs: Map<string, FunctionCost>, total: number): Map<string, number> {
  const out = new Map<string, number>(HELPER_KINDS.map(({ stage }) => [stage, 0]));
  let told = 0;
  for (const [name, cost] of costs) {
    const kind = HELPER_KINDS.find(({ match }) => match.test(name));
    if (!kind) continue;
    const ir = inclusive(cost);
    out.set(kind.stage, out.get(kind.stage)! + ir);
    told += ir;
  }
  out.set("V8's other threads: other", Math.max(0, total - told));
  return out;
}
