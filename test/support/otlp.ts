/**
 * An OTLP/HTTP receiver for tests: a real HTTP server that takes what an
 * exporter posts to `/v1/traces` in OTLP's JSON encoding and keeps each span,
 * flattened, with the raw bodies for checks on everything that was exported.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
  /** The resource's attributes (service.name, …). */
  resource: Record<string, string | number | boolean>;
}

interface OtlpValue { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number }
interface OtlpAttribute { key: string; value: OtlpValue }

function attributes(list: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.boolValue ?? value.doubleValue ?? '';
  }
  return out;
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every body posted, as text: what a check for leaked values reads. */
  readonly bodies: string[] = [];
  /** Content types of the posts. */
  readonly contentTypes: string[] = [];
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** `port`: a given one (a collector coming up where the gateway already sends), else any free one. */
  static async start(port = 0): Promise<OtlpReceiver> {
    let receiver!: OtlpReceiver;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        receiver.bodies.push(text);
        receiver.contentTypes.push(String(req.headers['content-type']));
        receiver.#take(JSON.parse(text));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    receiver = new OtlpReceiver(server);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  #take(body: any): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const resource = attributes(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes: attributes(span.attributes),
            status: span.status?.code ?? 0,
            resource,
          });
        }
      }
    }
  }

  /** The spans of one trace, once `ready` holds for them (exports are batched: this waits for them, never for a time). */
  async trace(traceId: string, ready: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
    for (;;) {
      const spans = this.spans.filter((span) => span.traceId === traceId);
      if (ready(spans)) return spans;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
