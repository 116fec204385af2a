import { describe, it, expect } from 'vitest';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, parseListParams, singleParam, type RawQuery } from '../../src/aip/list-request.ts';
import { invalidOn } from '../support/invalid-argument.ts';

describe('parseListParams defaults and limits', () => {
  it('uses the spec constants: default 50, maximum 200', () => {
    expect(DEFAULT_PAGE_SIZE).toBe(50);
    expect(MAX_PAGE_SIZE).toBe(200);
  });

  it('defaults everything on an empty query', () => {
    expect(parseListParams({})).toEqual({ pageSize: 50, pageToken: undefined, orderBy: undefined, skip: 0 });
  });

  it('takes page_size as given within the limit', () => {
    expect(parseListParams({ page_size: '1' }).pageSize).toBe(1);
    expect(parseListParams({ page_size: '17' }).pageSize).toBe(17);
    expect(parseListParams({ page_size: '200' }).pageSize).toBe(200);
  });

  it('caps page_size at 200', () => {
    expect(parseListParams({ page_size: '201' }).pageSize).toBe(200);
    expect(parseListParams({ page_size: '100000' }).pageSize).toBe(200);
    expect(parseListParams({ page_size: String(2 ** 31 - 1) }).pageSize).toBe(200);
  });

  it('treats page_size 0 (and an empty value) as the default', () => {
    expect(parseListParams({ page_size: '0' }).pageSize).toBe(50);
    expect(parseListParams({ page_size: '' }).pageSize).toBe(50);
  });

  it('reads skip, default 0', () => {
    expect(parseListParams({ skip: '0' }).skip).toBe(0);
    expect(parseListParams({ skip: '25' }).skip).toBe(25);
    expect(parseListParams({ skip: '' }).skip).toBe(0);
  });

  it('accepts an explicit plus sign, as Go\'s strconv.ParseInt does', () => {
    expect(parseListParams({ page_size: '+7' }).pageSize).toBe(7);
    expect(parseListParams({ skip: '+3' }).skip).toBe(3);
  });
});

describe('parseListParams spellings', () => {
  it('reads pageSize as page_size', () => {
    expect(parseListParams({ pageSize: '12' }).pageSize).toBe(12);
  });

  it('reads page_token and pageToken', () => {
    expect(parseListParams({ page_token: 'abc' }).pageToken).toBe('abc');
    expect(parseListParams({ pageToken: 'def' }).pageToken).toBe('def');
  });

  it('treats an empty page token as no token (first page)', () => {
    expect(parseListParams({ page_token: '' }).pageToken).toBeUndefined();
  });

  it('reads order_by and orderBy verbatim', () => {
    expect(parseListParams({ order_by: 'name desc' }).orderBy).toBe('name desc');
    expect(parseListParams({ orderBy: 'created_at desc' }).orderBy).toBe('created_at desc');
  });

  it('ignores unrelated query keys', () => {
    expect(parseListParams({ name: 'x', 'uidp.descendants_of': 'y', page: '3' } as RawQuery)).toEqual({
      pageSize: 50, pageToken: undefined, orderBy: undefined, skip: 0,
    });
  });
});

describe('parseListParams errors (INVALID_ARGUMENT)', () => {
  it.each(['-1', '-200'])('negative page_size %s', (v) => {
    invalidOn('page_size', () => parseListParams({ page_size: v }));
  });

  it('negative pageSize is reported under page_size', () => {
    invalidOn('page_size', () => parseListParams({ pageSize: '-5' }));
  });

  it.each(['-1', '-100'])('negative skip %s', (v) => {
    invalidOn('skip', () => parseListParams({ skip: v }));
  });

  it.each(['1.5', 'abc', '1e3', '0x10', '10abc', '٣', '1 0', 'NaN', 'Infinity', '--1'])('non-integer page_size %j', (v) => {
    invalidOn('page_size', () => parseListParams({ page_size: v }));
  });

  it.each(['2.0', 'ten', '5s'])('non-integer skip %j', (v) => {
    invalidOn('skip', () => parseListParams({ skip: v }));
  });

  it('refuses integers outside int32 instead of wrapping', () => {
    invalidOn('page_size', () => parseListParams({ page_size: String(2 ** 31) }));
    invalidOn('skip', () => parseListParams({ skip: '99999999999999999999' }));
  });

  it('refuses a parameter given twice under one name', () => {
    invalidOn('page_size', () => parseListParams({ page_size: ['10', '20'] }));
    invalidOn('page_token', () => parseListParams({ page_token: ['a', 'b'] }));
    invalidOn('order_by', () => parseListParams({ order_by: ['name', 'uid'] }));
    invalidOn('skip', () => parseListParams({ skip: ['1', '2'] }));
  });

  it('refuses a repeated parameter even when the values agree', () => {
    invalidOn('page_size', () => parseListParams({ page_size: ['10', '10'] }));
  });

  it('refuses a parameter given under both spellings', () => {
    invalidOn('page_size', () => parseListParams({ page_size: '10', pageSize: '20' }));
    invalidOn('page_token', () => parseListParams({ page_token: 'a', pageToken: 'b' }));
    invalidOn('order_by', () => parseListParams({ order_by: 'name', orderBy: 'name' }));
  });
});

describe('singleParam', () => {
  it('returns the value under whichever name holds it', () => {
    expect(singleParam({ b: 'x' }, ['a', 'b'])).toBe('x');
    expect(singleParam({}, ['a', 'b'])).toBeUndefined();
  });

  it('names the first spelling in its error', () => {
    invalidOn('a', () => singleParam({ a: '1', b: '2' }, ['a', 'b']));
    invalidOn('a', () => singleParam({ b: ['1', '2'] }, ['a', 'b']));
  });
});
