/**
 * Logging: pino, with secrets redacted by path before anything is written.
 * Request headers are logged (they help when a sidecar misbehaves), so the
 * credentials among them must be censored here, in one place.
 */
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'config.pageTokenKey',
  'pageTokenKey',
  '*.authorization',
  'authorization',
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    serializers: {
      req: (req: { method: string; url: string; id: string; headers: Record<string, unknown>; ip?: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url,
        remoteAddress: req.ip,
        headers: req.headers,
      }),
    },
  };
}

export function createLogger(level: string, stream?: DestinationStream): Logger {
  return stream ? pino(loggerOptions(level), stream) : pino(loggerOptions(level));
}
