/**
 * The four v1 CRUD routes every collection shares (api-surface.md §1-4, §8):
 * `POST <coll>/{parent=**}` with the resource as body, `GET <coll>` with a
 * filter in the query, `PUT <coll>/{id=**}` with the whole resource as body
 * (the path id wins over the body's), and `DELETE <coll>/{id=**}` → `{}`.
 */
import { decodeBody, decodeQuery, renderMessage, type Message, type MessageDef } from '../protojson.ts';
import type { ListFilter } from '../query.ts';
import type { Route } from '../router.ts';

export interface CollectionSpec<Row> {
  path: string;
  /** The resource message: the create body and the PUT body alike. */
  resource: MessageDef;
  filter: MessageDef;
  /** Non-path, non-body fields of the create request (e.g. preventExisting). */
  createQuery?: MessageDef;
  create(parent: string, body: Message, query: Message): Row;
  update(id: string, body: Message): Row;
  list(filter: ListFilter): readonly unknown[];
  remove(id: string): void;
  render(row: Row): unknown;
}

/** Decoded messages are typed by the schema they were decoded against. */
export function as<T>(message: Message): T {
  return message as unknown as T;
}

export function renderer<Row>(def: MessageDef): (row: Row) => Record<string, unknown> {
  return (row) => renderMessage(def, row as unknown as Message);
}

export function collectionRoutes<Row>(spec: CollectionSpec<Row>): Route[] {
  const create: Route<{ parent: string; body: Message; query: Message }> = {
    method: 'POST',
    path: spec.path,
    capture: true,
    decode: ({ capture, body, query }) => ({
      parent: capture,
      body: decodeBody(spec.resource, body),
      query: spec.createQuery ? decodeQuery(spec.createQuery, query) : {},
    }),
    run: ({ parent, body, query }) => spec.render(spec.create(parent, body, query)),
  };
  const list: Route<Message> = {
    method: 'GET',
    path: spec.path,
    decode: ({ query }) => decodeQuery(spec.filter, query),
    run: (filter) => ({ items: spec.list(as<ListFilter>(filter)) }),
  };
  const update: Route<{ id: string; body: Message }> = {
    method: 'PUT',
    path: spec.path,
    capture: true,
    decode: ({ capture, body }) => ({ id: capture, body: { ...decodeBody(spec.resource, body), id: capture } }),
    run: ({ id, body }) => spec.render(spec.update(id, body)),
  };
  const remove: Route<string> = {
    method: 'DELETE',
    path: spec.path,
    capture: true,
    decode: ({ capture }) => capture,
    run: (id) => {
      spec.remove(id);
      return {};
    },
  };
  return [create, list, update, remove] as Route[];
}
