/**
 * The gateway's own server for the calls the real v2 clients make: unary gRPC
 * (`application/grpc`, protobuf, uncompressed) over HTTP/2 to an RPC of the
 * contract. It reads the one message, runs the RPC's answer, and writes the
 * answer or a trailers-only status on the HTTP/2 stream itself, which it is
 * offered before Node's compatibility API makes a request and a response of
 * it (listener.ts).
 *
 * Why not leave these to ConnectRPC, which serves every other call (gRPC-Web,
 * Connect, compressed messages, health, reflection)? A profile of GetGroup
 * over gRPC: ConnectRPC's generic machinery (web Headers, async iterables,
 * an AbortSignal per call, the compat response) cost ~200 µs of CPU per call
 * on its own, more than the whole REST request. The unary gRPC wire protocol
 * is small (envelope.ts), so the common call takes this path and anything
 * unusual, decided from the headers before a byte of the body is read, takes
 * ConnectRPC's. Both give the same statuses, details and access line.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { Message } from '@bufbuild/protobuf';
import { ConnectError } from '@connectrpc/connect';
import { ApiError, deadlineExceeded, invalidField } from '../../aip/errors.ts';
import { Code, type CodeNumber } from '../../rpc-status.ts';
import { callerGone, cancelled, deadlinePassed, type RequestContext } from '../../request/context.ts';
import type { TraceSpan } from '../../observability/tracing.ts';
import { neverIndexed } from '../never-indexed.ts';
import { startCall, type CallObservers, type CallRecord } from './call.ts';
import { grpcTimeoutMs } from './grpc-timeout.ts';
import { framedDocument } from './document-binary.ts';
import { UnaryRequestReader, type EnvelopeProblem } from './envelope.ts';
import { requestDecoder } from './request-decoder.ts';
import { failureOf, type UnaryCall, type UnaryMethod } from './service.ts';
import { domainForService, grpcStatusHeaders } from './status.ts';

export interface UnaryServerOptions extends CallObservers {
  methods: readonly UnaryMethod[];
  /** The largest request message, in bytes. */
  readMaxBytes: number;
  /**
   * The whole request's deadline (`--request-timeout-ms`, the methods' own budget), which reading the
   * message is part of: a caller that starts a call and never finishes its message is refused then (a
   * shorter grpc-timeout wins), so HTTP/2 streams held open by a stalled or hostile client do not pile
   * up. One timer from the call's start to its answer: the answer's request context is handed it (adopt).
   */
  requestTimeoutMs: number;
  /** The refusal for a call arriving now when the gateway is overloaded. */
  shed?: (() => ApiError | undefined) | undefined;
}

/**
 * Takes an HTTP/2 stream and returns true when it is a call this server answers; otherwise leaves it
 * untouched. Offered every stream before Node's compatibility API sees it (listener.ts).
 */
export type UnaryServer = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => boolean;

const GRPC_TYPES = new Set(['application/grpc', 'application/grpc+proto']);
/** Compressed requests are read by ConnectRPC, which decodes these. */
const ACCEPT_ENCODING = 'gzip,br';
/** The codec named in full, as ConnectRPC answers too. */
const ANSWER_TYPE = 'application/grpc+proto';
/**
 * OK's trailers, the same on every answer: nothing in them to keep out of the HPACK table
 * (never-indexed.ts), so they go unmarked, and Node lists no marked names for them.
 */
const OK_TRAILERS = { 'grpc-status': '0' } as const;
/** `respond`'s options, which Node only reads: made once, not per answer. */
const WITH_TRAILERS = { waitForTrailers: true } as const;
const TRAILERS_ONLY = { endStream: true } as const;

export function unaryServer(options: UnaryServerOptions): UnaryServer {
  const byPath = new Map(options.methods.map((entry): [string, Served] => [`/${entry.method.parent.typeName}/${entry.method.name}`, { entry, decode: requestDecoder(entry.method.input) }]));
  const endings = new Endings(options.accessLog ?? options.log);
  return (stream, headers) => {
    if (headers[':method'] !== 'POST') return false;
    const contentType = headers['content-type'];
    if (contentType === undefined || !GRPC_TYPES.has(contentType)) return false;
    const served = byPath.get(headers[':path'] ?? '');
    if (!served) return false;
    const encoding = headers['grpc-encoding'];
    if (encoding !== undefined && encoding !== 'identity') return false;
    const timeoutMs = headers['grpc-timeout'] === undefined ? undefined : grpcTimeoutMs(String(headers['grpc-timeout']));
    if (timeoutMs === null) return false; // malformed: ConnectRPC's refusal says what is wrong
    new UnaryCallOnStream(options, endings, served, stream as CallStream, headers, timeoutMs).start();
    return true;
  };
}

/** A method served, and how its request message is read. */
interface Served {
  entry: UnaryMethod;
  decode: (bytes: Buffer) => Message;
}

/** Where a stream keeps its call, for the listeners (one function each for every stream) to find it. */
const CALL = Symbol('v2gw.unaryCall');
type CallStream = ServerHttp2Stream & { [CALL]?: UnaryCallOnStream };

/**
 * One call on its stream, and what its answer reads of it (UnaryCall): one object a call. The stream's
 * listeners are functions of the module, which find the call on the stream (`this` in a listener), not
 * closures and once-wrappers made per call; the call's one deadline timer (its message's arrival, then
 * its answer, whose request context adopts it) is handed the call, not a closure.
 */
class UnaryCallOnStream implements UnaryCall {
  readonly #options: UnaryServerOptions;
  readonly #endings: Endings;
  readonly #entry: UnaryMethod;
  readonly #decode: (bytes: Buffer) => Message;
  readonly #stream: CallStream;
  readonly #headers: IncomingHttpHeaders;
  readonly timeoutMs: number | undefined;
  readonly #call: CallRecord;
  /** The answer's request context, once it has made one: ended by the call's deadline and by the caller going. */
  #context: RequestContext | undefined;
  /** Reads the message until it has all come; dropped then. */
  #reader: UnaryRequestReader | undefined;
  /** Headers the answer added (`setHeader`), sent with its own. */
  #added: Array<[string, string]> | undefined;
  #answered = false;
  /** The status of the answer written: the call is recorded as ended with it once the stream has closed. */
  #sent: CodeNumber | undefined;
  /** The call's deadline: the message's arrival, then the answer's. */
  #timer: NodeJS.Timeout | undefined;
  /** The RPC's answer is running: it ends the call itself, even when the caller has gone. */
  #running = false;

  constructor(options: UnaryServerOptions, endings: Endings, { entry, decode }: Served, stream: CallStream, headers: IncomingHttpHeaders, timeoutMs: number | undefined) {
    this.#options = options;
    this.#endings = endings;
    this.#entry = entry;
    this.#decode = decode;
    this.#stream = stream;
    this.#headers = headers;
    this.timeoutMs = timeoutMs;
    const service = entry.method.parent.typeName;
    this.#call = startCall(options, service, entry.method.name, 'grpc', (name) => headers[name]);
  }

  get authorization(): string | undefined {
    return this.#headers.authorization;
  }

  get authority(): string | undefined {
    return this.#headers[':authority'] ?? this.#headers.host;
  }

  get origin(): string | undefined {
    return this.#headers.origin;
  }

  get requestId(): string {
    return this.#call.requestId;
  }

  get span(): TraceSpan | undefined {
    return this.#call.span;
  }

  adopt(ctx: RequestContext): void {
    this.#context = ctx;
  }

  setHeader(name: string, value: string): void {
    (this.#added ??= []).push([name, value]);
  }

  start(): void {
    const stream = this.#stream;
    stream[CALL] = this;
    // A stream error (a reset, a protocol error) ends in 'close', handled there; unheard, it would be thrown.
    stream.on('error', ignore);
    stream.on('close', onClose);
    const overloaded = this.#options.shed?.();
    if (overloaded) return this.#refuse(overloaded);
    // A deadline already past (`grpc-timeout: 0n`): answered now, the body unread.
    if (this.timeoutMs !== undefined && this.timeoutMs <= 0) return this.#refuse(new ApiError(Code.DEADLINE_EXCEEDED, 'the call\'s grpc-timeout had passed when it arrived'));
    this.#timer = setTimeout(deadlinePassedFor, this.#deadlineMs(), this);
    this.#reader = new UnaryRequestReader(this.#options.readMaxBytes);
    stream.on('data', onData).on('end', onEnd);
  }

  /** The call's deadline: the request's own, or the caller's shorter one. */
  #deadlineMs(): number {
    return Math.min(this.#options.requestTimeoutMs, this.timeoutMs ?? Number.POSITIVE_INFINITY);
  }

  /** The stream closed: the call is recorded as ended, or, unanswered, the caller has gone. */
  closed(): void {
    // Let go of at once: the stream object can outlive its close (Node's handle of it), and a call it
    // still held would live on with it, through scavenges, into the old generation.
    this.#stream[CALL] = undefined;
    if (this.#answered) {
      // The access line and metrics once the answer's last frame has been written (Endings).
      if (this.#sent !== undefined) this.#endings.add(this.#call, this.#sent);
      return;
    }
    // The caller resetting the stream, or its connection going, before the answer: the answer's work is cancelled.
    if (this.#context) callerGone(this.#context);
    if (!this.#running) this.#fail(cancelled());
  }

  read(chunk: Buffer): void {
    const problem = this.#reader?.push(chunk);
    if (problem) this.#refuse(envelopeError(problem));
  }

  /** The message has all come (or the call was refused while it came): decoded, and answered. */
  ended(): void {
    const reader = this.#reader;
    this.#reader = undefined;
    if (this.#answered || !reader) return;
    const read = reader.end();
    if ('kind' in read) return this.#refuse(envelopeError(read));
    let message: Message;
    try {
      message = this.#decode(read.message);
    } catch (error) {
      return this.#refuse(invalidField('request', `the request message cannot be read: ${(error as Error).message}`));
    }
    void this.#run(message);
  }

  /** The call's deadline passed: its message still to come, the call is refused; its answer running, that is ended. */
  deadlinePassed(): void {
    if (this.#context) deadlinePassed(this.#context);
    else if (!this.#running) this.#refuse(deadlineExceeded(`the request message did not arrive within the deadline of ${Math.ceil(this.#deadlineMs())} ms`));
  }

  async #run(message: Message): Promise<void> {
    this.#running = true;
    let body: Buffer;
    try {
      const document = await this.#entry.answer(message, this);
      body = framedDocument(this.#entry.method.output, document);
    } catch (error) {
      const failure = failureOf(error, this.#call.rpc, this.#call.requestId, this.#options.log);
      return this.#fail(failure instanceof ConnectError ? new ApiError(failure.code as number as CodeNumber, failure.rawMessage) : failure);
    }
    // A flat list of names and values, which Node sends as it is (an object it would copy first).
    const headers: string[] = [':status', '200', 'content-type', ANSWER_TYPE, 'x-request-id', this.#call.requestId, 'grpc-accept-encoding', ACCEPT_ENCODING];
    if (this.#added) for (const [name, value] of this.#added) headers.push(name, value);
    this.#send(neverIndexed(headers), body, Code.OK);
  }

  /** A call refused before its answer ran: the rest of the body is not read. */
  #refuse(error: ApiError): void {
    this.#fail(error);
    this.#reader = undefined;
    this.#stream.removeListener('data', onData).resume();
  }

  /** A trailers-only answer: the status in the headers, no message. */
  #fail(error: ApiError): void {
    if (this.#answered) return;
    const headers: OutgoingHttpHeaders = { ':status': 200, 'content-type': ANSWER_TYPE, 'x-request-id': this.#call.requestId };
    if (this.#added) for (const [name, value] of this.#added) headers[name] = value;
    // The error's domain is worked out here, for the calls that fail, not for every call.
    this.#send(neverIndexed({ ...headers, ...grpcStatusHeaders(error, domainForService(this.#entry.method.parent.typeName), this.#call.requestId) }), undefined, error.code);
  }

  /** Writes the call's one answer, a message or (none) a trailers-only status, and records how the call ended. */
  #send(headers: OutgoingHttpHeaders | string[], message: Buffer | undefined, code: CodeNumber): void {
    if (this.#answered) return;
    this.#answered = true;
    clearTimeout(this.#timer);
    const stream = this.#stream;
    if (stream.destroyed || stream.closed || stream.headersSent) return this.#gone(code);
    try {
      if (message) {
        // Asked once per stream: one function for every stream, not a function and a once-wrapper made per call.
        stream.on('wantTrailers', sendOkTrailers);
        stream.respond(headers as OutgoingHttpHeaders, WITH_TRAILERS);
        stream.end(message);
      } else {
        stream.respond(headers as OutgoingHttpHeaders, TRAILERS_ONLY);
      }
    } catch {
      // Closed between the check and the write (HTTP/2 throws then): the caller is gone all the same.
      return this.#gone(code);
    }
    this.#sent = code;
  }

  /** The caller gone (its stream reset, its session closed): nothing can be written; an answer it never got is CANCELLED. */
  #gone(code: CodeNumber): void {
    this.#call.end(code === Code.OK ? Code.CANCELLED : code);
  }
}

/** The stream's listeners, each the same function for every stream, `this` the stream. */
function onClose(this: CallStream): void {
  this[CALL]?.closed();
}

function onData(this: CallStream, chunk: Buffer): void {
  this[CALL]?.read(chunk);
}

function onEnd(this: CallStream): void {
  this[CALL]?.ended();
}

function deadlinePassedFor(call: UnaryCallOnStream): void {
  call.deadlinePassed();
}

/**
 * Answered calls, recorded as ended (access line, metrics) once their last frame is on the wire, and
 * the access log written straight after them.
 *
 * Why wait: a stream closes as its last frame (the trailers, or a trailers-only status) is packed,
 * before that frame is written. Node writes an HTTP/2 session's frames from a native immediate, after
 * the JavaScript that queued them, and sends a message's trailers one immediate after the message.
 * Work done at the close, or at the answer as before, holds the caller's last frame back; an immediate
 * queued at the close runs once the frame is out. The log is written then too: left to its own
 * immediate (log.ts) it went out a turn later, in front of the caller's next call.
 *
 * Ends that fall in one turn are recorded together, and the log written once for all of them, as
 * bufferedDestination writes once a turn under load.
 *
 * Measured on GetGroup at one connection (h2load), this against the line made with the answer: v1's
 * answer read to the trailers written 285 µs against 382 (medians, `perf trace`), the call's p50
 * 395–514 µs against 474–597 over four alternating rounds.
 */
class Endings {
  #pending: Array<{ call: CallRecord; code: CodeNumber }> = [];
  readonly #log: { flush?: () => void };

  constructor(log: object) {
    this.#log = log;
  }

  add(call: CallRecord, code: CodeNumber): void {
    if (this.#pending.push({ call, code }) === 1) setImmediate(this.#record);
  }

  readonly #record = (): void => {
    const pending = this.#pending;
    this.#pending = [];
    for (const { call, code } of pending) call.end(code);
    this.#log.flush?.();
  };
}

/** A stream's errors end in its 'close' (handled there); one listener for every stream, not a function made per call. */
function ignore(): void {}

/** A message's answer ends with OK in its trailers, sent when the stream asks for them ('wantTrailers', with the stream as `this`). */
function sendOkTrailers(this: ServerHttp2Stream): void {
  this.sendTrailers(OK_TRAILERS);
}

function envelopeError(problem: EnvelopeProblem): ApiError {
  switch (problem.kind) {
    case 'cardinality':
      return new ApiError(Code.UNIMPLEMENTED, problem.detail);
    case 'too-large':
      return new ApiError(Code.RESOURCE_EXHAUSTED, problem.detail);
    case 'malformed':
      return invalidField('request', `the request message cannot be read: ${problem.detail}`);
  }
}
