/**
 * `grpc-message` as the gRPC spec encodes it: only bytes outside printable
 * ASCII, and `%` itself, are percent-encoded. ConnectRPC encodes it with
 * encodeURIComponent, which also escapes `:` and `/`; Go decodes either, but
 * grpc-js decodes with decodeURI and would show "Invalid argument%3A …". So
 * the header (trailers-only answers) and the trailer are re-encoded on the
 * way out.
 */
import type { Http2ServerRequest, Http2ServerResponse, OutgoingHttpHeaders } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';

const MESSAGE = 'grpc-message';

export function grpcPercentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function reencode(headers: OutgoingHttpHeaders | undefined): void {
  const value = headers?.[MESSAGE];
  if (typeof value !== 'string') return;
  let text = value;
  try {
    text = decodeURIComponent(value);
  } catch {
    // Not percent-encoded after all: encode it as it stands.
  }
  headers![MESSAGE] = grpcPercentEncode(text);
}

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;

/** Wraps a handler so the gRPC status message of its answers is encoded as the spec says. */
export function withSpecMessageEncoding<H extends (req: Request, res: Response) => void>(handler: H): H {
  return ((req: Request, res: Response) => {
    if (String(req.headers['content-type'] ?? '').startsWith('application/grpc')) {
      const writeHead = res.writeHead.bind(res) as (status: number, headers?: OutgoingHttpHeaders) => Response;
      (res as { writeHead: unknown }).writeHead = (status: number, headers?: OutgoingHttpHeaders) => {
        reencode(headers);
        return writeHead(status, headers);
      };
      const addTrailers = res.addTrailers.bind(res) as (headers: OutgoingHttpHeaders) => void;
      res.addTrailers = (headers: OutgoingHttpHeaders) => {
        reencode(headers);
        addTrailers(headers);
      };
    }
    handler(req, res);
  }) as H;
}
