import { describe, expect, it } from 'vitest';
import type { StoreQuery } from '../../src/observability/store-query.ts';
import { QueryLog, statementShape } from '../../src/store/query-log.ts';

describe('statementShape', () => {
  it('names the SQL keyword and the first table, never a value', () => {
    expect(statementShape('select "kind", "uid" from "v2gw_resources" where "kind" = ? and "uid" = ?')).toEqual({ operation: 'SELECT', table: 'v2gw_resources' });
    expect(statementShape('insert into "v2gw_times" ("kind") values ($1) on conflict do nothing')).toEqual({ operation: 'INSERT', table: 'v2gw_times' });
    expect(statementShape('update "v2gw_resources" set "body" = $1')).toEqual({ operation: 'UPDATE', table: 'v2gw_resources' });
    expect(statementShape('delete from "v2gw_resources" where "uid" = ?')).toEqual({ operation: 'DELETE', table: 'v2gw_resources' });
    expect(statementShape('savepoint v2gw_sp1')).toEqual({ operation: 'SAVEPOINT', table: undefined });
  });

  it('answers OTHER for a keyword outside its list, so a label stays bounded', () => {
    expect(statementShape('vacuum')).toEqual({ operation: 'OTHER', table: undefined });
    expect(statementShape('')).toEqual({ operation: 'OTHER', table: undefined });
  });
});

describe('QueryLog', () => {
  it('tells each listener of a query and of a failure by its code, until it stops listening', () => {
    const log = new QueryLog();
    const heard: StoreQuery[] = [];
    const stop = log.subscribe((query) => heard.push(query));
    const query = { sql: 'select 1 from "t" where a = ?', parameters: ['secret-value'], query: {} } as never;
    log.log({ level: 'query', query, queryDurationMillis: 2.5 });
    log.log({ level: 'error', query, queryDurationMillis: 1, error: Object.assign(new Error('duplicate secret-value'), { code: '23505' }) });
    stop();
    log.log({ level: 'query', query, queryDurationMillis: 1 });
    expect(heard.map(({ operation, table, durationMs, error }) => ({ operation, table, durationMs, error }))).toEqual([
      { operation: 'SELECT', table: 't', durationMs: 2.5, error: undefined },
      { operation: 'SELECT', table: 't', durationMs: 1, error: '23505' },
    ]);
    expect(JSON.stringify(heard)).not.toContain('secret-value');
  });
});
