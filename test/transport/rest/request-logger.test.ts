/**
 * The request's own logger made on first use (src/transport/rest/request-logger.ts): it writes what
 * pino's child would write, answers its level as that child would, and is not made at all for a
 * request that logs nothing; through Fastify, over HTTP, a failed request's line still carries its id
 * and no credential.
 */
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/log.ts';
import { lazyChildren } from '../../../src/transport/rest/request-logger.ts';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

function captured(level: string) {
  const written: string[] = [];
  const logger = createLogger(level, { write: (line: string) => void written.push(line) });
  return { written, logger };
}

/** A child of `logger` as the gateway makes it: `logger` made lazy first (its `child` as it was is what a lazy child calls). */
function lazyChild(logger: ReturnType<typeof createLogger>, bindings: Record<string, unknown>, options: Record<string, unknown>) {
  lazyChildren(logger);
  return logger.child(bindings, options);
}

const timeless = (line: string) => line.replace(/"time":\d+/, '"time":0');

describe('lazy request logger', () => {
  it('writes the lines pino\'s child writes, redaction included', () => {
    const eager = captured('debug');
    const lazy = captured('debug');
    const child = eager.logger.child({ reqId: 'r-1' }, { level: 'info' });
    const made = lazyChild(lazy.logger, { reqId: 'r-1' }, { level: 'info' });
    for (const log of [child, made]) {
      log.info({ req: { headers: { authorization: 'Bearer secret-1' } } }, 'incoming');
      log.warn('plain %s', 'text');
      log.error({ err: new Error('boom') }, 'failed');
      log.debug('below the child\'s level');
    }
    expect(lazy.written.map(timeless).join('').replace(/"stack":"[^"]*"/g, '')).toBe(eager.written.map(timeless).join('').replace(/"stack":"[^"]*"/g, ''));
    expect(lazy.written).toHaveLength(3);
    expect(lazy.written.join('')).not.toContain('secret-1');
  });

  it('makes no child until something is logged, and one when it is', () => {
    const { logger } = captured('info');
    const child = vi.spyOn(logger, 'child');
    const made = lazyChild(logger, { reqId: 'r-2' }, {});
    expect(made.level).toBe('info');
    expect((made as unknown as { isLevelEnabled(l: string): boolean }).isLevelEnabled('info')).toBe(true);
    expect(child).not.toHaveBeenCalled();
    made.info('now');
    made.warn('again');
    expect(child).toHaveBeenCalledTimes(1);
  });

  it('answers isLevelEnabled and level as pino\'s child does, for every parent and route level', () => {
    for (const parentLevel of LEVELS) {
      for (const routeLevel of [undefined, ...LEVELS]) {
        const { logger } = captured(parentLevel);
        const options = routeLevel ? { level: routeLevel } : {};
        const eager = logger.child({ reqId: 'x' }, options);
        const lazy = lazyChild(logger, { reqId: 'x' }, options) as unknown as { level: string; isLevelEnabled(l: string): boolean };
        expect(lazy.level, `${parentLevel}/${routeLevel}`).toBe(eager.level);
        for (const asked of [...LEVELS, 'nonsense']) {
          expect(lazy.isLevelEnabled(asked), `${parentLevel}/${routeLevel} asked ${asked}`).toBe(eager.isLevelEnabled(asked));
        }
      }
    }
  });
});

describe('lazy request logger in Fastify', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('logs a failed request with its id and without its credential, and a quiet route not at all', async () => {
    const { written, logger } = captured('info');
    const app = Fastify({ loggerInstance: logger, disableRequestLogging: true, genReqId: () => 'req-42' });
    lazyChildren(app.log);
    const made = vi.spyOn(logger, 'child');
    app.get('/fails', async (request) => {
      request.log.warn({ req: { headers: request.headers } }, 'about to fail');
      throw new Error('no');
    });
    app.get('/quiet', { logLevel: 'error' }, async (request) => {
      request.log.warn('not written at error');
      return { ok: true };
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    close = () => app.close();
    written.length = 0; // Fastify's own line on listening
    expect((await fetch(`${url}/quiet`)).status).toBe(200);
    expect(written).toHaveLength(0);
    // No pino child for a request that logged nothing (Fastify's own logger is made before the spy).
    expect(made).not.toHaveBeenCalled();
    expect((await fetch(`${url}/fails`, { headers: { authorization: 'Bearer sk-never-1' } })).status).toBe(500);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const lines = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'about to fail', reqId: 'req-42', level: 40, req: { headers: { authorization: '[REDACTED]' } } });
    expect(written.join('')).not.toContain('sk-never-1');
  });
});
