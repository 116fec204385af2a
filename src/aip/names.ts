/** Spelling helpers: protojson accepts a field's JSON name (lowerCamel) or its proto name (snake_case). */

export function snakeToCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function camelToSnake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Both spellings of a dotted path, segment by segment. */
export function spellings(path: string): string[] {
  const camel = path.split('.').map(snakeToCamel).join('.');
  const snake = path.split('.').map(camelToSnake).join('.');
  return camel === snake ? [camel] : [camel, snake];
}

/**
 * What `record` holds under `key` as its own property; undefined otherwise.
 * Every lookup of a name a client wrote (a mask path, a body key, a filter or
 * enum value) goes through this, so that `__proto__`, `constructor`,
 * `toString` and the rest of Object.prototype never pass for a field.
 */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}
