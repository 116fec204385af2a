/**
 * One write's CloudEvent (spec 1.0), as the platform makes it: the type the
 * method declares, the subject and extensions read off the body as its message
 * declares, `bodytype` naming that message, and data
 * `{"actor": {"subject": …}, "body": …}` with the body redacted as declared.
 * Pure: the caller supplies the id, source and time.
 */
import type { DescMessage } from '@bufbuild/protobuf';
import { parentOf } from '../uidp.ts';
import type { Json } from '../vocabulary/json.ts';
import { eventSource, type MethodEvent, type UidAt } from './declarations.ts';

/** The CloudEvent's context attributes and extensions, as binary mode sends them in `ce-*` headers. */
export interface CloudEventAttributes {
  readonly specversion: '1.0';
  readonly id: string;
  readonly source: string;
  readonly type: string;
  readonly subject: string;
  readonly time: string;
  readonly datacontenttype: 'application/json';
  /** Extensions: `group`, `bodytype`, and any other the method names. */
  readonly extensions: Readonly<Record<string, string>>;
}

export interface EventInput {
  readonly declared: MethodEvent;
  /** The message the body is: the answer's, or the request's when the answer is empty. */
  readonly message: DescMessage;
  readonly body: Json;
  readonly actor: string;
  readonly id: string;
  readonly source: string;
  readonly time: string;
}

export interface Event {
  readonly attributes: CloudEventAttributes;
  /** The data's bytes, exactly as delivered (the signature's digest is of these). */
  readonly data: string;
  /** The `group` extension: subscriptions at it or an ancestor receive the event. */
  readonly group: string;
}

function read(body: Json, path: string): unknown {
  let value: unknown = body;
  for (const step of path.split('.')) {
    const indexed = /^(\w+)\[(\d+)\]$/.exec(step);
    value = indexed
      ? (value as Record<string, unknown[] | undefined> | undefined)?.[indexed[1]!]?.[Number(indexed[2])]
      : (value as Record<string, unknown> | undefined)?.[step];
  }
  return value;
}

function uidAt(body: Json, at: UidAt): string {
  const value = read(body, at.path);
  const uid = typeof value === 'string' ? value : '';
  if (at.position === 'self' || uid === '') return uid;
  return at.position === 'parent' ? parentOf(uid) : uid.split('/')[0]!;
}

/** The body with only the kept paths (a path that names a message keeps it whole). */
function kept(body: Json, paths: readonly string[]): Json {
  const out: Record<string, unknown> = {};
  for (const path of paths) {
    const value = read(body, path);
    if (value === undefined) continue;
    const steps = path.split('.');
    let into = out;
    for (const step of steps.slice(0, -1)) into = (into[step] ??= {}) as Record<string, unknown>;
    into[steps[steps.length - 1]!] = value;
  }
  return out as Json;
}

export function buildEvent(input: EventInput): Event {
  const source = eventSource(input.message);
  const extensions: Record<string, string> = { bodytype: input.message.typeName };
  for (const name of input.declared.extensions) {
    const at = source.extensions.get(name);
    if (at) extensions[name] = uidAt(input.body, at);
  }
  const group = extensions.group ?? '';
  const body = source.noBody ? undefined : source.keep ? kept(input.body, source.keep) : input.body;
  const data = JSON.stringify({ actor: { subject: input.actor }, ...(body === undefined ? {} : { body }) });
  return {
    attributes: {
      specversion: '1.0',
      id: input.id,
      source: input.source,
      type: input.declared.type,
      subject: uidAt(input.body, source.subject),
      time: input.time,
      datacontenttype: 'application/json',
      extensions,
    },
    data,
    group,
  };
}
