/**
 * What the contract declares about events, read once per method and message:
 * a write method's `(chainguard.annotations.events)` (the CloudEvent type, its
 * extensions, its audience) and a message's `(chainguard.annotations.event_source)`
 * (where the subject and each extension's uid are, and what of the body an event
 * may carry). Nothing here names a resource.
 */
import { getOption, hasOption, type DescMessage, type DescMethod } from '@bufbuild/protobuf';
import { contract } from '../contract/registry.ts';

const eventsExt = contract.getExtension('chainguard.annotations.events')!;
const sourceExt = contract.getExtension('chainguard.annotations.event_source')!;

/** The method's events annotation, as the platform's protos spell it. */
export interface MethodEvent {
  readonly type: string;
  readonly extensions: readonly string[];
  readonly audience: 'INTERNAL' | 'CUSTOMER';
}

export type Position = 'self' | 'parent' | 'root';

/** Where a uid is read from a body: a JSON path (`roleBindings[0].uid`) and a position relative to it. */
export interface UidAt {
  readonly path: string;
  readonly position: Position;
}

/** How an event reads its subject and extensions off a body of one message type, and what it redacts. */
export interface EventSource {
  readonly subject: UidAt;
  readonly extensions: ReadonlyMap<string, UidAt>;
  /** JSON paths the body keeps; undefined: all of it. */
  readonly keep: readonly string[] | undefined;
  readonly noBody: boolean;
}

interface EventsOption { type: string; extensions: string[]; audience: number }
interface SourceOption {
  subjectField: string;
  subjectPosition: number;
  extensions: { name: string; field: string; position: number }[];
  keep: string[];
  noBody: boolean;
}

const POSITIONS: readonly Position[] = ['self', 'parent', 'root'];

/** A proto field path (`role_bindings[0].uid`) in protojson's spelling (`roleBindings[0].uid`). */
function jsonPath(protoPath: string): string {
  return protoPath.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

export function methodEvent(method: DescMethod): MethodEvent | undefined {
  if (!hasOption(method, eventsExt)) return undefined;
  const option = getOption(method, eventsExt) as unknown as EventsOption;
  return { type: option.type, extensions: option.extensions, audience: option.audience === 1 ? 'CUSTOMER' : 'INTERNAL' };
}

const UID_IS_SUBJECT: UidAt = { path: 'uid', position: 'self' };

export function eventSource(message: DescMessage): EventSource {
  if (!hasOption(message, sourceExt)) {
    return { subject: UID_IS_SUBJECT, extensions: new Map([['group', { path: 'uid', position: 'parent' }]]), keep: undefined, noBody: false };
  }
  const option = getOption(message, sourceExt) as unknown as SourceOption;
  const subject = option.subjectField ? { path: jsonPath(option.subjectField), position: POSITIONS[option.subjectPosition] ?? 'self' } : UID_IS_SUBJECT;
  const extensions = new Map(option.extensions.map((e) => [e.name, { path: jsonPath(e.field), position: POSITIONS[e.position] ?? 'self' }] as const));
  if (!extensions.has('group')) extensions.set('group', { path: subject.path, position: 'parent' });
  return { subject, extensions, keep: option.keep.length > 0 ? option.keep.map(jsonPath) : undefined, noBody: option.noBody };
}
