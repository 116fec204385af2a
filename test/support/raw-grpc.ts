/**
 * One gRPC call over raw HTTP/2 (node:http2), the headers and body exactly as
 * given: for what a real client never sends (broken envelopes, odd headers)
 * and for reading the answer's headers, trailers and bytes as they came.
 */
import http2 from 'node:http2';
import { once } from 'node:events';
import { fromBinary, toJson } from '@bufbuild/protobuf';
import { contract } from '../../src/contract/registry.ts';
import { TOKEN } from './stack.ts';

const STATUS = contract.getMessage('google.rpc.Status')!;

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  /** The google.rpc.Status of grpc-status-details-bin, as protojson. */
  details: Record<string, any> | undefined;
  grpcStatus: number | undefined;
  grpcMessage: string;
  body: Buffer;
  rstCode: number;
  /** Headers and trailers the server sent as HPACK literals never indexed (RFC 7541 §6.2.3), sorted. */
  neverIndexed: string[];
}

/** One gRPC call over raw HTTP/2: the headers and body exactly as given. */
export async function rawGrpc(url: string, path: string, body: Buffer, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const session = http2.connect(url);
  session.on('error', () => {});
  try {
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', authorization: TOKEN, ...headers });
    let head: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (head = h));
    stream.on('trailers', (t) => (trailers = t));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', () => {});
    stream.end(body);
    await once(stream, 'close');
    const all = { ...head, ...trailers } as Record<string, string>;
    const bin = all['grpc-status-details-bin'];
    return {
      status: Number(head[':status'] ?? 0),
      headers: all,
      details: bin ? toJson(STATUS, fromBinary(STATUS, Buffer.from(bin, 'base64')), { registry: contract }) as Record<string, any> : undefined,
      grpcStatus: all['grpc-status'] === undefined ? undefined : Number(all['grpc-status']),
      grpcMessage: decodeURIComponent(all['grpc-message'] ?? ''),
      body: Buffer.concat(chunks),
      rstCode: stream.rstCode ?? 0,
      neverIndexed: [...sensitive(head), ...sensitive(trailers)].sort(),
    };
  } finally {
    session.close();
  }
}


/** What Node reports of a received header block's never-indexed fields. */
function sensitive(headers: http2.IncomingHttpHeaders): string[] {
  return [...((headers as Record<symbol, string[] | undefined>)[http2.sensitiveHeaders] ?? [])];
}
