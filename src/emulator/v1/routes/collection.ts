/**
 * The v1 CRUD routes collections share (api-surface.md §0.5, §1-9):
 * `POST <coll>/{parent=**}` with a message as body, `GET <coll>` with a filter
 * in the query, `PUT <coll>/{id=**}` with the whole resource as body (the path
 * wins over the body's copy of the key), and `DELETE <coll>/{id=**}` → `{}`.
 * Each builder is exported on its own for collections that differ in a verb
 * (advisories create at a literal path and page their list; invites have no PUT).
 */
import { decodeBody, decodeQuery, renderMessage, type Message, type MessageDef } from '../protojson.ts';
import type { ListFilter } from '../query.ts';
import type { Route } from '../router.ts';

/** `Filter` is the decoded filter message (most collections share ListFilter's keys). */
export interface CollectionSpec<Row, Filter = ListFilter> {
  path: string;
  /** The resource message: the create body and the PUT body alike. */
  resource: MessageDef;
  filter: MessageDef;
  /** Non-path, non-body fields of the create request (e.g. preventExisting). */
  createQuery?: MessageDef;
  /** The field the PUT path fills (`id`, or `group` for account associations). */
  key?: string;
  create(parent: string, body: Message, query: Message): Row;
  update(id: string, body: Message): Row;
  list(filter: Filter): readonly unknown[];
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

/** `POST <path>/{x=**}`: the capture, the body decoded as `body`, and any query-string fields. */
export function createRoute(
  path: string,
  body: MessageDef,
  run: (parent: string, body: Message, query: Message) => unknown,
  queryDef?: MessageDef,
): Route {
  const route: Route<{ parent: string; body: Message; query: Message }> = {
    method: 'POST',
    path,
    capture: true,
    decode: ({ capture, body: raw, query }) => ({
      parent: capture,
      body: decodeBody(body, raw),
      query: queryDef ? decodeQuery(queryDef, query) : {},
    }),
    run: ({ parent, body: decoded, query }) => run(parent, decoded, query),
  };
  return route as Route;
}

/** `GET <path>` with the filter message in the query string. */
export function listRoute(path: string, filter: MessageDef, run: (filter: Message) => unknown, options: { public?: boolean } = {}): Route {
  const route: Route<Message> = { method: 'GET', path, decode: ({ query }) => decodeQuery(filter, query), run, ...options };
  return route as Route;
}

/** `PUT <path>/{key=**}`, body `*`: the whole resource, with the path filling `key`. */
export function updateRoute(path: string, resource: MessageDef, run: (id: string, body: Message) => unknown, key = 'id'): Route {
  const route: Route<{ id: string; body: Message }> = {
    method: 'PUT',
    path,
    capture: true,
    decode: ({ capture, body }) => ({ id: capture, body: { ...decodeBody(resource, body), [key]: capture } }),
    run: ({ id, body }) => run(id, body),
  };
  return route as Route;
}

/** `DELETE <path>/{id=**}` → google.protobuf.Empty. */
export function deleteRoute(path: string, remove: (id: string) => void): Route {
  const route: Route<string> = {
    method: 'DELETE',
    path,
    capture: true,
    decode: ({ capture }) => capture,
    run: (id) => {
      remove(id);
      return {};
    },
  };
  return route as Route;
}

export function collectionRoutes<Row, Filter = ListFilter>(spec: CollectionSpec<Row, Filter>): Route[] {
  return [
    createRoute(spec.path, spec.resource, (parent, body, query) => spec.render(spec.create(parent, body, query)), spec.createQuery),
    listRoute(spec.path, spec.filter, (filter) => ({ items: spec.list(as<Filter>(filter)) })),
    updateRoute(spec.path, spec.resource, (id, body) => spec.render(spec.update(id, body)), spec.key),
    deleteRoute(spec.path, (id) => spec.remove(id)),
  ];
}
