/**
 * A unary request's message from its bytes. Most of the contract's requests (every Get and Delete)
 * hold only strings, and a call sends them as a few length-delimited ASCII fields: those are read here
 * directly, without protobuf-es's generic reader (its reader object, a field lookup and a text decoder a
 * field). Bytes that are anything else (another field, another wire type, a non-ASCII string, a field
 * number past 15, a cut-off length) are left to `fromBinary`, which decides what they mean and how
 * they fail. Either way the message is the one `fromBinary` makes.
 */
import { create, fromBinary, ScalarType, type DescMessage, type Message } from '@bufbuild/protobuf';
import { FeatureSet_FieldPresence } from '@bufbuild/protobuf/wkt';

/** Length-delimited: a string's wire type. */
const LENGTH_DELIMITED = 2;

/** `fromBinary` for `desc`, quicker for the plain messages it can read itself; throws where `fromBinary` does. */
export function requestDecoder(desc: DescMessage): (bytes: Buffer) => Message {
  const plain = plainFields(desc);
  if (!plain) return (bytes) => fromBinary(desc, bytes);
  return (bytes) => plainMessage(desc, plain, bytes) ?? fromBinary(desc, bytes);
}

/**
 * Field names by their one-byte tag, when every field of the message is a singular string without
 * explicit presence (so an empty one is the same as none) numbered 1 to 15; undefined otherwise.
 */
function plainFields(desc: DescMessage): Map<number, string> | undefined {
  const byTag = new Map<number, string>();
  for (const field of desc.fields) {
    if (field.fieldKind !== 'scalar' || field.scalar !== ScalarType.STRING || field.oneof !== undefined) return undefined;
    if (field.presence !== FeatureSet_FieldPresence.IMPLICIT || field.number > 15) return undefined;
    byTag.set((field.number << 3) | LENGTH_DELIMITED, field.localName);
  }
  return byTag;
}

/** The message, or undefined when the bytes hold anything but the plain fields (for `fromBinary`). */
function plainMessage(desc: DescMessage, byTag: Map<number, string>, bytes: Buffer): Message | undefined {
  const message = create(desc) as Message & Record<string, unknown>;
  let at = 0;
  while (at < bytes.length) {
    const name = byTag.get(bytes[at++]!);
    if (name === undefined) return undefined;
    let length = 0;
    for (let shift = 0; ; shift += 7) {
      // A length past 28 bits is more than any message the server lets through.
      if (at >= bytes.length || shift > 21) return undefined;
      const byte = bytes[at++]!;
      length |= (byte & 0x7f) << shift;
      if (byte < 0x80) break;
    }
    const end = at + length;
    if (end > bytes.length) return undefined;
    for (let i = at; i < end; i++) if (bytes[i]! >= 0x80) return undefined;
    // A field sent twice: the last one counts, as protobuf says.
    message[name] = bytes.toString('latin1', at, end);
    at = end;
  }
  return message;
}
