/**
 * The two scenarios, as each protocol asks them of the gateway, with a check of
 * one answer so an error page is never what gets measured. The gRPC request
 * and response types come from the project's contract at run time
 * (src/contract/registry.ts), not from generated code: the benchmark calls
 * what the gateway serves.
 */
import { create, toJson, type DescMethodUnary, type JsonObject } from '@bufbuild/protobuf';
import { apiServices, contract } from '../../src/index.ts';

export type ScenarioKey = 'get' | 'list';
export const SCENARIO_KEYS: readonly ScenarioKey[] = ['get', 'list'];

export interface Scenario {
  key: ScenarioKey;
  name: string;
  /** Path and query on the gateway, e.g. `/iam/v2beta1/groups/<uid>`. */
  restPath: string;
  grpc: { method: DescMethodUnary; request: ReturnType<typeof create> };
  /** Checks one answer, as JSON (REST's body, or the gRPC response in protojson); a problem, or undefined. */
  check(body: JsonObject): string | undefined;
  /**
   * The same question asked of v1 directly (or through the raw floor): v1 has no Get, so a list by id;
   * and it cannot page, so the whole list. With the check of its answer.
   */
  v1: { path: string; check(body: JsonObject): string | undefined };
  /**
   * The translating floor's flags for this question (bench/translation-floor-process.ts, asked v1's path),
   * and the check of its answer: the gateway's, less what that floor does not do (a page token).
   */
  translating: { args: readonly string[]; check(body: JsonObject): string | undefined };
}

/** The resource both scenarios read, as the mappings name it. */
const RESOURCE = 'groups';
/** The page size of the List scenario. */
const PAGE_SIZE = 50;

function v1Items(body: JsonObject): JsonObject[] | undefined {
  return Array.isArray(body.items) ? (body.items as JsonObject[]) : undefined;
}

const GROUPS_SERVICE = 'chainguard.platform.iam.v2beta1.GroupsService';

function groupsMethod(name: string): DescMethodUnary {
  const service = apiServices().find((s) => s.typeName === GROUPS_SERVICE);
  const method = service?.methods.find((m) => m.name === name);
  if (!method || method.methodKind !== 'unary') throw new Error(`contract: ${GROUPS_SERVICE}/${name} is not a unary method of the contract`);
  return method as DescMethodUnary;
}

/** A problem with a List answer's page, or undefined when it holds a full page of groups. */
function fullPage(body: JsonObject): string | undefined {
  const page = body[RESOURCE];
  if (Array.isArray(page) && page.length === PAGE_SIZE) return undefined;
  return `expected a page of ${PAGE_SIZE} ${RESOURCE}, got ${Array.isArray(page) ? page.length : JSON.stringify(body).slice(0, 200)}`;
}

export function scenario(key: ScenarioKey, org: string, group: string): Scenario {
  if (key === 'get') {
    const method = groupsMethod('GetGroup');
    const check = (body: JsonObject) => (body.uid === group ? undefined : `expected group ${group}, got ${JSON.stringify(body).slice(0, 200)}`);
    return {
      key,
      name: 'Get group',
      // A UIDP's slash is a path separator here, as in the v2 HTTP mapping `{uid=**}`.
      restPath: `/iam/v2beta1/groups/${group}`,
      grpc: { method, request: create(method.input, { uid: group }) },
      check,
      translating: { args: ['--resource', RESOURCE], check },
      v1: {
        path: `/iam/v1/groups?id=${encodeURIComponent(group)}`,
        check: (body) => (v1Items(body)?.length === 1 && v1Items(body)![0]!.id === group ? undefined : `expected exactly group ${group}, got ${JSON.stringify(body).slice(0, 200)}`),
      },
    };
  }
  const method = groupsMethod('ListGroups');
  return {
    key,
    name: 'List groups',
    restPath: `/iam/v2beta1/groups?uidp.children_of=${encodeURIComponent(org)}&page_size=${PAGE_SIZE}`,
    grpc: { method, request: create(method.input, { uidp: { childrenOf: org }, pageSize: PAGE_SIZE }) },
    check: (body) => fullPage(body) ?? (body.nextPageToken ? undefined : 'expected a nextPageToken'),
    translating: { args: ['--resource', RESOURCE, '--page', String(PAGE_SIZE)], check: fullPage },
    v1: {
      path: `/iam/v1/groups?uidp.childrenOf=${encodeURIComponent(org)}`,
      // The whole list: at least more than a page, or the comparison is not the one meant.
      check: (body) => ((v1Items(body)?.length ?? 0) > 50 ? undefined : `expected the whole list, got ${JSON.stringify(body).slice(0, 200)}`),
    },
  };
}

/** A gRPC response as protojson, so it is checked exactly as the REST body is. */
export function grpcAsJson(method: DescMethodUnary, message: Parameters<typeof toJson>[1]): JsonObject {
  return toJson(method.output, message, { registry: contract }) as JsonObject;
}
