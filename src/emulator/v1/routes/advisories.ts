/**
 * `/vulnerabilities/v1/advisories` and their events (api-surface.md §10).
 * Create is a literal POST whose body carries `parentId` and `advisory`; the
 * list pages (AdvisoriesList); events hang off `{parent_id=**}/events` and
 * are replaced at `/vulnerabilities/v1/advisory_events/{id=**}`.
 */
import { invalidArgument } from '../errors.ts';
import { decodeBody, type Message } from '../protojson.ts';
import type { Route } from '../router.ts';
import type { EmulatorState } from '../state.ts';
import type { AdvisoryEventFields, AdvisoryFields } from '../stores/advisories.ts';
import type { V1Advisory, V1AdvisoryEvent } from '../stores/advisory-records.ts';
import type { AdvisoryFilter, AdvisoryPage } from '../stores/advisory-list.ts';
import {
  ADVISORIES_LIST,
  ADVISORY,
  ADVISORY_EVENT,
  ADVISORY_EVENT_LIST,
  ADVISORY_FILTER,
  CREATE_ADVISORY_EVENT_REQUEST,
  CREATE_ADVISORY_REQUEST,
} from '../vulnerability-messages.ts';
import { as, deleteRoute, listRoute, renderer, updateRoute } from './collection.ts';

const PATH = '/vulnerabilities/v1/advisories';
const render = renderer<V1Advisory>(ADVISORY);
const renderEvent = renderer<V1AdvisoryEvent>(ADVISORY_EVENT);
const renderPage = renderer<AdvisoryPage>(ADVISORIES_LIST);
const renderEvents = renderer<{ parentId: string; items: V1AdvisoryEvent[] }>(ADVISORY_EVENT_LIST);

/** Decision: a create request without its message (`advisory`, `advisoryEvent`) is 3, naming the field. */
function required<T>(value: unknown, field: string): T {
  if (value === undefined) throw invalidArgument(`${field}: is required`);
  return value as T;
}

export function advisoryRoutes(state: EmulatorState): Route[] {
  const create: Route<Message> = {
    method: 'POST',
    path: PATH,
    decode: ({ body }) => decodeBody(CREATE_ADVISORY_REQUEST, body),
    run: ({ parentId = '', advisory }) => render(state.createAdvisory(parentId as string, required<AdvisoryFields>(advisory, 'advisory'))),
  };
  const createEvent: Route<{ parent: string; body: Message }> = {
    method: 'POST',
    path: PATH,
    capture: true,
    suffix: 'events',
    decode: ({ capture, body }) => ({ parent: capture, body: decodeBody(CREATE_ADVISORY_EVENT_REQUEST, body) }),
    run: ({ parent, body }) => renderEvent(state.createAdvisoryEvent(parent, required<AdvisoryEventFields>(body.advisoryEvent, 'advisory_event'))),
  };
  const listEvents: Route<string> = {
    method: 'GET',
    path: PATH,
    capture: true,
    suffix: 'events',
    decode: ({ capture }) => capture,
    run: (parentId) => renderEvents({ parentId, items: state.listAdvisoryEvents(parentId) }),
  };
  return [
    create as Route,
    listRoute(PATH, ADVISORY_FILTER, (filter) => renderPage(state.listAdvisories(as<AdvisoryFilter>(filter)))),
    updateRoute(PATH, ADVISORY, (id, body) => render(state.updateAdvisory(id, as<AdvisoryFields>(body)))),
    deleteRoute(PATH, (id) => state.deleteAdvisory(id)),
    // Declared after the advisory routes, as in the proto.
    createEvent as Route,
    listEvents as Route,
    updateRoute('/vulnerabilities/v1/advisory_events', ADVISORY_EVENT, (id, body) =>
      renderEvent(state.updateAdvisoryEvent(id, as<AdvisoryEventFields>(body))),
    ),
  ];
}
