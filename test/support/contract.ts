/**
 * Every REST answer of a v2 route is checked against the contract: a success
 * must parse strictly (no unknown field) as its RPC's response message, and a
 * failure as `google.rpc.Status`. So the whole REST suite is a contract test.
 */
import { fromJson, type DescMessage, type DescMethod, type JsonValue } from '@bufbuild/protobuf';
import { bindContract, forMode, unservedMethods } from '../../src/contract/bindings.ts';
import { apiServices, contract, httpRule } from '../../src/contract/registry.ts';
import type { Mode } from '../../src/vocabulary/custom-method.ts';
import { MAPPINGS } from '../../mappings/index.ts';
import { byRank, compileTemplate, type PathTemplate } from '../../src/transport/rest/path-template.ts';

const VERSIONS = ['v2beta1', 'v2'];
const routes: { verb: string; template: PathTemplate; method: DescMethod }[] = apiServices()
  .flatMap((service) => service.methods)
  .flatMap((method) => {
    const rule = httpRule(method);
    if (!rule) return [];
    return [rule, ...rule.additional].map((r) => ({ verb: r.verb.toUpperCase(), template: compileTemplate(r.pattern, VERSIONS), method }));
  })
  .sort((a, b) => byRank(a.template, b.template));

/** The RPC a REST request reaches, by the contract's routes (as the gateway's router ranks them). */
export function rpcOfRoute(verb: string, path: string): DescMethod | undefined {
  const clean = path.replace(/\/+$/, '');
  return routes.find((r) => r.verb === (verb === 'HEAD' ? 'GET' : verb) && r.template.match(clean))?.method;
}

const V2_PATH = /^\/(iam|registry|vulnerabilities|advisory)\/v2(beta1)?(\/|:|$)/;

/** Throws, naming the route and the parser's complaint, when a v2 answer is not its contract's message. */
export function checkAnswer(method: string, path: string, status: number, body: unknown): void {
  if (!V2_PATH.test(path) || body === undefined) return;
  let schema: DescMessage | undefined;
  if (status >= 400) schema = contract.getMessage('google.rpc.Status');
  else schema = rpcOfRoute(method, path)?.output;
  if (!schema) return;
  try {
    fromJson(schema, body as JsonValue, { registry: contract, ignoreUnknownFields: false });
  } catch (error) {
    throw new Error(`${method} ${path} answered ${status} with a body that is not a ${schema.typeName}: ${(error as Error).message}\n${JSON.stringify(body)}`);
  }
}

/**
 * An RPC the gateway does not serve in `mode`, with a REST path for it (a UIDP in every variable),
 * for tests of the UNIMPLEMENTED answer; undefined once a mode serves everything.
 */
export function unservedRpc(mode: Mode): { service: string; method: string; fullName: string; verb: string; path: string } | undefined {
  const { served } = forMode(bindContract(apiServices(), MAPPINGS), mode);
  const method = unservedMethods(apiServices(), served).find((m) => httpRule(m));
  if (!method) return undefined;
  const rule = httpRule(method)!;
  const path = rule.pattern.replace(/\{[^}]*\}/g, '0123456789abcdef0123456789abcdef01234567');
  return { service: method.parent.typeName, method: method.name, fullName: `${method.parent.typeName}.${method.name}`, verb: rule.verb.toUpperCase(), path };
}
