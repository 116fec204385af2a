/**
 * `/iam/v1/terms/{group=**}` (Terms.AcceptTerms: POST, body `*`
 * `{documentIds}` → `{group, documentIds}`; Terms.ListAccepted: GET →
 * `{items: [{docId, acceptedBy, acceptedAt}]}`). The group must exist; the
 * acceptor is the caller (caller.ts reads the token's subject).
 */
import { callerSubject } from '../caller.ts';
import { notFound } from '../errors.ts';
import { ACCEPT_TERMS_REQUEST, TERMS_DOCUMENT_STATUS } from '../messages.ts';
import { decodeBody, type Message } from '../protojson.ts';
import type { Route } from '../router.ts';
import type { EmulatorState } from '../state.ts';
import { as, renderer } from './collection.ts';

const PATH = '/iam/v1/terms';
const render = renderer(TERMS_DOCUMENT_STATUS);

export function termsRoutes(state: EmulatorState): Route[] {
  const group = (id: string): string => {
    if (!id || state.listGroups({ id }).length === 0) throw notFound(`group ${JSON.stringify(id)} not found`);
    return id;
  };
  const accept: Route<Message> = {
    method: 'POST',
    path: PATH,
    capture: true,
    decode: ({ capture, body }) => ({ ...decodeBody(ACCEPT_TERMS_REQUEST, body), group: capture }),
    run: (request, caller) => {
      const { group: id = '', documentIds = [] } = as<{ group?: string; documentIds?: string[] }>(request);
      return { group: id, documentIds: state.terms.accept(group(id), documentIds, callerSubject(caller.token)) };
    },
  };
  const list: Route<string> = {
    method: 'GET',
    path: PATH,
    capture: true,
    decode: ({ capture }) => capture,
    run: (id) => ({ items: state.terms.accepted(group(id)).map(render) }),
  };
  return [accept, list] as Route[];
}
