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
