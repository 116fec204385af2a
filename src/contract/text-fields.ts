/**
 * A message's text fields outside any oneof: the one kind of field whose value in the contract's JSON
 * form is the text itself, whether read into the message or written back from it. Code that would read
 * a few such values through protobuf (fromJson, then toJson) to get their canonical form can take them as
 * they are instead, when `isPlainText` holds for each.
 */
import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';

export interface TextFields {
  readonly byJsonName: ReadonlyMap<string, DescField>;
  readonly byName: ReadonlyMap<string, DescField>;
}

const known = new WeakMap<DescMessage, TextFields>();

/** The message's text fields outside any oneof (a oneof member's value is read with its case), by either name; made once per message. */
export function textFields(desc: DescMessage): TextFields {
  let fields = known.get(desc);
  if (!fields) {
    const text = desc.fields.filter((f) => f.fieldKind === 'scalar' && f.scalar === ScalarType.STRING && !f.oneof);
    fields = { byJsonName: new Map(text.map((f) => [f.jsonName, f])), byName: new Map(text.map((f) => [f.name, f])) };
    known.set(desc, fields);
  }
  return fields;
}

/** Text protobuf reads as it is: a string that is well-formed UTF-16 (it refuses one with a lone surrogate). */
export function isPlainText(value: unknown): value is string {
  return typeof value === 'string' && value.isWellFormed();
}
