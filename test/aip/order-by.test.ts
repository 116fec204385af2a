import { describe, it, expect } from 'vitest';
import { formatOrderBy, orderableNames, parseOrderBy, type Orderable } from '../../src/aip/order-by.ts';
import { ORDER_BY_NAME_AND_TIME } from '../../mappings/common.ts';
import roleBindings from '../../mappings/role-bindings.ts';
import repos from '../../mappings/repos.ts';
import { invalidOn } from '../support/invalid-argument.ts';

const GROUPS: Orderable = ORDER_BY_NAME_AND_TIME;

describe('parseOrderBy: single fields', () => {
  it('parses `name` as ascending, with the uid tiebreak appended', () => {
    expect(parseOrderBy('name', GROUPS)).toEqual([
      { field: 'name', desc: false },
      { field: 'uid', desc: false },
    ]);
  });

  it('parses `name desc` and `name asc`', () => {
    expect(parseOrderBy('name desc', GROUPS)).toEqual([
      { field: 'name', desc: true },
      { field: 'uid', desc: false },
    ]);
    expect(parseOrderBy('name asc', GROUPS)).toEqual([
      { field: 'name', desc: false },
      { field: 'uid', desc: false },
    ]);
  });

  it('accepts the direction in any letter case', () => {
    expect(parseOrderBy('name DESC', GROUPS)[0]).toEqual({ field: 'name', desc: true });
    expect(parseOrderBy('name Asc', GROUPS)[0]).toEqual({ field: 'name', desc: false });
  });

  it('resolves the spec example `created_at desc` (alias) to createTime', () => {
    expect(parseOrderBy('created_at desc', GROUPS)).toEqual([
      { field: 'createTime', desc: true },
      { field: 'uid', desc: false },
    ]);
    expect(parseOrderBy('updated_at', GROUPS)[0]).toEqual({ field: 'updateTime', desc: false });
  });

  it('resolves both proto (snake) and JSON (camel) spellings', () => {
    const snake = parseOrderBy('create_time desc', GROUPS);
    const camel = parseOrderBy('createTime desc', GROUPS);
    expect(snake).toEqual(camel);
    expect(snake[0]).toEqual({ field: 'createTime', desc: true });
    expect(parseOrderBy('update_time', GROUPS)[0]).toEqual({ field: 'updateTime', desc: false });
  });

  it('does not duplicate the uid tiebreak when uid is ordered explicitly', () => {
    expect(parseOrderBy('uid desc', GROUPS)).toEqual([{ field: 'uid', desc: true }]);
    expect(parseOrderBy('uid', GROUPS)).toEqual([{ field: 'uid', desc: false }]);
    expect(parseOrderBy('uid desc, name', GROUPS)).toEqual([
      { field: 'uid', desc: true },
      { field: 'name', desc: false },
    ]);
  });

  it('allows uid even when the mapping does not list it', () => {
    expect(parseOrderBy('uid desc', { fields: ['name'] })).toEqual([{ field: 'uid', desc: true }]);
  });
});

describe('parseOrderBy: several fields', () => {
  it('parses a comma-separated list in order', () => {
    expect(parseOrderBy('name desc,createTime', GROUPS)).toEqual([
      { field: 'name', desc: true },
      { field: 'createTime', desc: false },
      { field: 'uid', desc: false },
    ]);
  });

  it('tolerates extra spaces and tabs around fields, directions and commas', () => {
    expect(parseOrderBy('   name    desc  ,   create_time\tasc  ', GROUPS)).toEqual([
      { field: 'name', desc: true },
      { field: 'createTime', desc: false },
      { field: 'uid', desc: false },
    ]);
  });

  it('keeps uid where it was written in a multi-field order', () => {
    expect(parseOrderBy('name, uid desc, createTime', GROUPS)).toEqual([
      { field: 'name', desc: false },
      { field: 'uid', desc: true },
      { field: 'createTime', desc: false },
    ]);
  });
});

describe('parseOrderBy: errors (INVALID_ARGUMENT on order_by)', () => {
  it.each([
    ['unknown field', 'colour'],
    ['unknown field with direction', 'colour desc'],
    ['field of another resource', 'capabilities'],
    ['bad direction', 'name up'],
    ['direction only', 'desc'],
    ['three words', 'name desc please'],
    ['trailing comma (empty clause)', 'name,'],
    ['leading comma (empty clause)', ',name'],
    ['empty clause in the middle', 'name,,uid'],
    ['duplicate field', 'name, name desc'],
    ['duplicate via two spellings', 'create_time, createTime desc'],
    ['duplicate via alias', 'created_at desc, createTime'],
    ['duplicate uid', 'uid, uid desc'],
    ['wrong case of a field name', 'Name'],
    ['SQL-ish injection', 'name; drop table'],
  ])('%s: %j', (_label, input) => {
    invalidOn('order_by', () => parseOrderBy(input, GROUPS));
  });

  it('names the unknown field in the message', () => {
    expect(invalidOn('order_by', () => parseOrderBy('colour', GROUPS)).message).toContain('colour');
  });

  it('refuses fields a resource does not declare (role bindings have no name order)', () => {
    invalidOn('order_by', () => parseOrderBy('name', roleBindings.orderBy));
    expect(parseOrderBy('created_at desc', roleBindings.orderBy)[0]).toEqual({ field: 'createTime', desc: true });
  });

  it('refuses updateTime on repos, which do not declare it', () => {
    invalidOn('order_by', () => parseOrderBy('update_time', repos.orderBy));
  });
});

describe('parseOrderBy: defaults', () => {
  it('uses `uid asc` when the request has no order_by', () => {
    expect(parseOrderBy(undefined, GROUPS)).toEqual([{ field: 'uid', desc: false }]);
    expect(parseOrderBy('', GROUPS)).toEqual([{ field: 'uid', desc: false }]);
    expect(parseOrderBy('   ', GROUPS)).toEqual([{ field: 'uid', desc: false }]);
  });

  it('uses `uid asc` when the mapping declares no default', () => {
    expect(parseOrderBy(undefined, { fields: ['name'] })).toEqual([{ field: 'uid', desc: false }]);
  });

  it('uses a mapping default such as `created_at desc` (group invites), plus the tiebreak', () => {
    const invites: Orderable = { fields: ['createTime'], aliases: { created_at: 'createTime' }, default: 'created_at desc' };
    expect(parseOrderBy(undefined, invites)).toEqual([
      { field: 'createTime', desc: true },
      { field: 'uid', desc: false },
    ]);
  });

  it('every real mapping default parses', () => {
    for (const orderable of [GROUPS, roleBindings.orderBy, repos.orderBy]) {
      const keys = parseOrderBy(undefined, orderable);
      expect(keys[keys.length - 1]!.field === 'uid' || keys.some((k) => k.field === 'uid')).toBe(true);
    }
  });
});

describe('orderableNames', () => {
  it('maps every spelling and alias to the v2 field path', () => {
    const names = orderableNames(GROUPS);
    expect(names.get('createTime')).toBe('createTime');
    expect(names.get('create_time')).toBe('createTime');
    expect(names.get('created_at')).toBe('createTime');
    expect(names.get('uid')).toBe('uid');
    expect(names.get('name')).toBe('name');
    expect(names.has('colour')).toBe(false);
  });
});

describe('formatOrderBy', () => {
  it('is canonical: spellings and aliases format identically', () => {
    const forms = ['created_at desc', 'createTime desc', 'create_time DESC', '  createTime   desc  '];
    const texts = forms.map((f) => formatOrderBy(parseOrderBy(f, GROUPS)));
    expect(new Set(texts).size).toBe(1);
    expect(texts[0]).toBe('createTime desc,uid asc');
  });

  it('spells out the implicit ascending direction', () => {
    expect(formatOrderBy(parseOrderBy('name', GROUPS))).toBe('name asc,uid asc');
    expect(formatOrderBy(parseOrderBy('name asc', GROUPS))).toBe('name asc,uid asc');
  });

  it('distinguishes different orders', () => {
    expect(formatOrderBy(parseOrderBy('name', GROUPS))).not.toBe(formatOrderBy(parseOrderBy('name desc', GROUPS)));
    expect(formatOrderBy(parseOrderBy('name,createTime', GROUPS))).not.toBe(formatOrderBy(parseOrderBy('createTime,name', GROUPS)));
  });

  it('formats an empty order as empty text', () => {
    expect(formatOrderBy([])).toBe('');
  });

  it('round-trips: its own output parses back to the same keys', () => {
    for (const input of ['name desc, createTime', 'uid desc', undefined, 'updated_at']) {
      const keys = parseOrderBy(input, GROUPS);
      expect(parseOrderBy(formatOrderBy(keys), GROUPS)).toEqual(keys);
    }
  });
});

describe('parseOrderBy: Object.prototype names', () => {
  it('are not orderable fields or aliases', () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(invalidOn('order_by', () => parseOrderBy(name, GROUPS)).message).toContain('unknown field');
      invalidOn('order_by', () => parseOrderBy(`name, ${name} desc`, GROUPS));
    }
  });
});
