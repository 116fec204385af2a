/**
 * The JSON text a comparing gateway's REST answers were sent in, by their document. The v2 routes
 * serialize through `serializeRemembering` when comparing (server.ts), and the tap hands that text to
 * the comparison's worker instead of the document: a string crosses to the worker as one copy, where a
 * document is walked into a structured clone on the caller's thread and built again on the worker's. The
 * worker reads it only if the candidate's answer is not those very bytes (candidate-rest.ts). Held
 * weakly: an answer's text goes with its document.
 */
const texts = new WeakMap<object, string>();

/** Fastify's default serializer (JSON.stringify), the text kept for the document's comparison. */
export function serializeRemembering(payload: unknown): string {
  const text = JSON.stringify(payload);
  if (typeof payload === 'object' && payload !== null) texts.set(payload, text);
  return text;
}

/** The text `document` was sent in, if it went out through `serializeRemembering`. */
export function sentText(document: object): string | undefined {
  return texts.get(document);
}
