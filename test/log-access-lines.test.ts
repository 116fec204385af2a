/**
 * The access line written from pino's pieces (src/log.ts, accessLines) is the line pino writes for
 * `info(fields, 'request')` on the same access logger, byte for byte but for the time.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { accessLines, accessLogger, createLogger, requestSummary } from '../src/log.ts';

/** A logger at `level` whose lines are kept, and its access logger's two ways of writing a line. */
function twin(level: string) {
  const written: string[] = [];
  const logger = createLogger(level, { write: (line: string) => void written.push(line) });
  const access = accessLogger(logger);
  return { written, viaPino: (fields: Record<string, unknown>) => access.info(fields, 'request'), viaLines: accessLines(access) };
}

/** The line with its time, the one thing the two writes cannot share, made the same. */
const timeless = (line: string) => line.replace(/"time":\d+/, '"time":0');

const REQUEST = {
  method: 'GET',
  url: '/iam/v2beta1/groups/a1b2/c3d4?page_size=5&filter="x\\y"',
  ip: '127.0.0.1',
  headers: { host: 'gw:8080', 'user-agent': 'curl/8 \u2028 ☃ \u0001', authorization: 'Bearer secret', 'x-unlisted': 'not logged' },
};

/**
 * Each line's fields as the code before gave them to pino (a REST request whole, pino's serializer
 * summarising it), and as accessLines takes them (already summarised): REST's, gRPC's, and edge cases.
 */
const CASES: Array<{ pino: Record<string, unknown>; lines: Record<string, unknown> }> = [
  { pino: { reqId: 'r-1', req: REQUEST, res: { statusCode: 200 }, responseTime: 1.234 }, lines: { reqId: 'r-1', req: requestSummary(REQUEST), res: { statusCode: 200 }, responseTime: 1.234 } },
  ...[
    { reqId: 'r-2', rpc: 'chainguard.platform.iam.v2beta1.GroupsService/GetGroup', code: 5, responseTime: 0.5, userAgent: undefined },
    { reqId: 'r-3', rpc: 'x/y', code: 0, responseTime: Number.NaN, userAgent: 'grpc-go/1.70 "quoted"' },
    {},
  ].map((fields) => ({ pino: fields, lines: fields })),
];

describe('access lines', () => {
  it('are the lines pino writes for the same fields', () => {
    const { written, viaPino, viaLines } = twin('info');
    for (const { pino, lines } of CASES) {
      viaPino(pino);
      viaLines(lines);
    }
    expect(written).toHaveLength(CASES.length * 2);
    for (let at = 0; at < written.length; at += 2) {
      expect(timeless(written[at + 1]!), `fields ${at / 2}`).toBe(timeless(written[at]!));
      JSON.parse(written[at + 1]!);
    }
  });

  it('carry no credential: the request is summarised with its headers censored', () => {
    const { written, viaLines } = twin('info');
    viaLines(CASES[0]!.lines);
    expect(written[0]).not.toContain('secret');
    expect(written[0]).not.toContain('x-unlisted');
    expect(JSON.parse(written[0]!).req.headers.authorization).toBe('[REDACTED]');
  });

  it('reach a destination that routes by level (pino.multistream) with their level', () => {
    const infos: string[] = [];
    const warns: string[] = [];
    const routed = pino.multistream([
      { level: 'info', stream: { write: (line: string) => void infos.push(line) } },
      { level: 'warn', stream: { write: (line: string) => void warns.push(line) } },
    ]);
    accessLines(accessLogger(createLogger('info', routed)))(CASES[1]!.lines);
    expect(infos).toHaveLength(1);
    expect(JSON.parse(infos[0]!)).toMatchObject({ level: 30, reqId: 'r-2', msg: 'request' });
    expect(warns).toEqual([]);
  });

  it('are not written when the logger logs above info', () => {
    const { written, viaLines } = twin('warn');
    viaLines(CASES[0]!.lines);
    expect(written).toEqual([]);
  });
});
