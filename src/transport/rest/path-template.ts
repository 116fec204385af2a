/**
 * `google.api.http` path templates (`/iam/v2beta1/groups/{group.uid=**}`,
 * `…/{group_uid=**}:requestGroupAccess`) compiled to matchers, with
 * grpc-gateway's rules: `**` captures slashes and may match zero segments, a
 * `:verb` is compared before any `**` can swallow it, and literal templates
 * win over variable ones. Pure.
 */

export interface PathTemplate {
  readonly source: string;
  /** Field paths of the variables, in order (`group.uid`). */
  readonly variables: readonly string[];
  /** Matches a request path (no query string); the captured values are percent-decoded. */
  match(path: string): Record<string, string> | undefined;
  /** Sort key: lower tries first. */
  readonly rank: readonly number[];
}

const VARIABLE = /^\{([a-zA-Z_][\w.]*)(?:=([^}]*))?\}$/;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `versions` lets one template serve its GA twin: the template's version
 * segment (`v2beta1`) matches any of them.
 */
export function compileTemplate(source: string, versions: readonly string[] = []): PathTemplate {
  // A verb follows the last segment or variable: `groups:lookupGroup`, `{group_uid=**}:requestGroupAccess`.
  const colon = source.indexOf(':', Math.max(source.lastIndexOf('/'), source.lastIndexOf('}')));
  const verb = colon >= 0 ? source.slice(colon + 1) : '';
  const body = verb ? source.slice(0, source.length - verb.length - 1) : source;
  const segments = body.split('/').slice(1);
  const variables: string[] = [];
  let pattern = '';
  let literals = 0;
  for (const segment of segments) {
    const variable = VARIABLE.exec(segment);
    if (!variable) {
      literals++;
      const version = versions.includes(segment) ? `(?:${versions.map(escape).join('|')})` : escape(segment);
      pattern += `/${version}`;
      continue;
    }
    variables.push(variable[1]!);
    const rule = variable[2] ?? '*';
    // `**` may match no segment at all, so its slash is optional with it.
    pattern += rule === '**' ? '(?:/(.*))?' : '/([^/]+)';
  }
  // Without a verb, the last segment may not carry one: `groups/<uid>:unknownVerb` is no Get.
  const tail = verb ? `:${escape(verb)}` : '(?<![:][^/]*)';
  const regex = new RegExp(`^${pattern}${tail}$`);
  return {
    source,
    variables,
    rank: [variables.length === 0 ? 0 : 1, verb ? 0 : 1, -literals],
    match(path: string) {
      const found = regex.exec(path);
      if (!found) return undefined;
      const values: Record<string, string> = {};
      for (let i = 0; i < variables.length; i++) values[variables[i]!] = withoutTrailingSlashes(decode(found[i + 1] ?? ''));
      return values;
    },
  };
}

/** `text` without the slashes it ends with (as `replace(/\/+$/, '')`, without a regex scanning the whole of it). */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return end === text.length ? text : text.slice(0, end);
}

function decode(text: string): string {
  // Nothing escaped (an id, a UIDP): nothing to decode.
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function byRank(a: PathTemplate, b: PathTemplate): number {
  for (let i = 0; i < a.rank.length; i++) {
    const d = a.rank[i]! - b.rank[i]!;
    if (d !== 0) return d;
  }
  return 0;
}
