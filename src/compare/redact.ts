/**
 * A message as the report's samples and a capture keep it: the values of
 * fields declared secret are replaced. What is secret is read from the
 * declarations, not from a list kept here: the contract's `debug_redact`
 * fields (an identity provider's client secret, a registration token), a
 * mapping's `secret` fields, and the values v1 shows only once, in a
 * create's answer (`createAnswerOnly`: a group invite's code). A field name
 * that reads as a credential is redacted too, for values the descriptor cannot
 * see into (a Struct). The caller's Authorization is never part of a message,
 * so it is never kept at all.
 */
import type { DescField, DescMessage } from '@bufbuild/protobuf';
import { MAPPINGS } from '../../mappings/index.ts';
import { contract } from '../contract/registry.ts';
import { flaggedPaths } from '../vocabulary/field-paths.ts';
import { isObject, type Json } from '../vocabulary/json.ts';
import type { Outcome } from './outcome.ts';
import { resourceMessageName, type ResourceMapping } from '../vocabulary/resource.ts';

const SECRET_NAME = /token|secret|password|passphrase|credential|authorization|private_?key|privateKey|apiKey|api_key/i;
/** Paging cursors are not credentials and a replay needs them. */
const KEPT = /^(page_?token|pageToken|next_?page_?token|nextPageToken)$/;

export const REDACTED = '(redacted)';

/** The fields whose values are never kept, from the declarations. */
export function declaredSecrets(mappings: readonly ResourceMapping[]): Set<DescField> {
  const out = new Set<DescField>();
  for (const file of contract.files) {
    for (const message of file.messages) collectRedacted(message, out);
  }
  for (const mapping of mappings) {
    const message = contract.getMessage(resourceMessageName(mapping));
    if (!message) continue;
    const paths = [...flaggedPaths(mapping.fields, 'secret'), ...(mapping.v1?.createAnswerOnly ?? [])];
    for (const path of paths) {
      const field = fieldAt(message, path.split('.'));
      if (field) out.add(field);
    }
  }
  return out;
}

function collectRedacted(message: DescMessage, out: Set<DescField>): void {
  for (const field of message.fields) if (field.proto.options?.debugRedact) out.add(field);
  for (const nested of message.nestedMessages) collectRedacted(nested, out);
}

function fieldAt(message: DescMessage, names: readonly string[]): DescField | undefined {
  const [name, ...rest] = names;
  const field = message.fields.find((f) => f.jsonName === name || f.name === name);
  if (!field || rest.length === 0) return field;
  return field.message ? fieldAt(field.message, rest) : undefined;
}

const SECRETS = declaredSecrets(MAPPINGS);

/** A message's JSON form with its secret values replaced; without a descriptor, by field names alone. */
export function redact(value: unknown, desc?: DescMessage): unknown {
  if (Array.isArray(value)) return value.map((v) => redact(v, desc));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const field = desc?.fields.find((f) => f.jsonName === key || f.name === key);
    const secret = (field !== undefined && SECRETS.has(field)) || (SECRET_NAME.test(key) && !KEPT.test(key));
    if (secret && v !== '' && v !== undefined && v !== null) out[key] = REDACTED;
    else if (field?.fieldKind === 'map') {
      out[key] = field.mapKind === 'message' && isObject(v) ? Object.fromEntries(Object.entries(v).map(([k, entry]) => [k, redact(entry, field.message)])) : v;
    } else if (field?.message && !field.message.typeName.startsWith('google.protobuf.')) out[key] = redact(v, field.message);
    else out[key] = field && field.fieldKind !== 'message' ? v : redact(v);
  }
  return out;
}

/** An outcome as a sample keeps it: an answer with its secrets redacted (an error carries no values). */
export function redactOutcome(outcome: Outcome | undefined, output: DescMessage): Outcome | undefined {
  return outcome?.kind === 'answer' ? { kind: 'answer', message: redact(outcome.message, output) as Json } : outcome;
}
