/**
 * The OpenAPI document the gateway serves at /openapi.json: valid OpenAPI 3.1,
 * one operation per route the mode serves (and none for what it does not),
 * field behaviours and capabilities from the contract — and real answers of
 * the running gateway validate against its schemas, so the document is a
 * checked contract, not prose.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindContract, forMode } from '../../src/contract/bindings.ts';
import { apiServices } from '../../src/contract/registry.ts';
import { MAPPINGS } from '../../mappings/index.ts';
import { startMode, type ModeStack } from '../support/modes.ts';

type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };
/** An operation by its id, with the path and verb it sits under. */
const byId = (doc: Doc, id: string) => {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [verb, op] of Object.entries(item)) if ((op as any).operationId === id) return { path, verb, op: op as any };
  }
  throw new Error(`no operation ${id}`);
};
const operations = (doc: Doc) => Object.values(doc.paths).flatMap((item) => Object.values(item).map((op: any) => op.operationId as string));

describe.each(['translate', 'native'] as const)('GET /openapi.json [%s]', (mode) => {
  let stack: ModeStack;
  let doc: Doc;
  beforeAll(async () => {
    stack = await startMode(mode);
    const reply = await fetch(new URL('/openapi.json', stack.url));
    expect(reply.headers.get('content-type')).toContain('application/json');
    doc = (await reply.json()) as Doc;
  });
  afterAll(async () => stack?.close());

  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has exactly the routes this mode serves, one operation each', () => {
    const { served } = forMode(bindContract(apiServices(), MAPPINGS), mode);
    const expected = served.flatMap((b) => b.rules.map((_, i) => (i === 0 ? b.method.name : `${b.method.name}_${i}`)));
    // A root organisation: CreateGroup's parent is OPTIONAL, so the gateway also serves it with none.
    expect(operations(doc).sort()).toEqual([...expected, 'CreateGroup_without_parent'].sort());
    // Overlays are kept in the store in both modes; native mode serves images and the feed from it too.
    expect(operations(doc)).toContain('CreateOverlay');
    if (mode === 'native') expect(operations(doc)).toEqual(expect.arrayContaining(['GetSize', 'ListDocuments']));
    expect(operations(doc)).not.toContain('ListResolvedVulnsReports');
  });

  it('carries field behaviours, the capabilities each method needs, and google.rpc.Status for errors', () => {
    const group = doc.components.schemas['chainguard.platform.iam.v2beta1.Group'];
    expect(group.properties.uid.readOnly).toBe(true);
    expect(group.required).toContain('name');
    expect(doc.components.schemas['chainguard.platform.iam.v2beta1.GroupInvite'].properties.ttl.writeOnly).toBe(true);
    const create = byId(doc, 'CreateGroup').op;
    expect(create['x-required-capabilities']).toEqual(['CAP_IAM_GROUPS_CREATE']);
    expect(create.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/chainguard.platform.iam.v2beta1.Group');
    expect(create.responses['404'].$ref).toBe('#/components/responses/Status');
    const list = byId(doc, 'ListGroups').op;
    expect(list.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['uidp.descendants_of', 'page_size', 'order_by', 'name']));
    expect(byId(doc, 'LookupGroup').path).toBe('/iam/v2beta1/groups:lookupGroup');
    expect(create.parameters[0].description).toContain('`parent`');
  });

  it('names every path parameter as its method\'s google.api.http rule does', () => {
    const { served } = forMode(bindContract(apiServices(), MAPPINGS), mode);
    for (const binding of served) {
      binding.rules.forEach((rule, i) => {
        const { path, verb, op } = byId(doc, i === 0 ? binding.method.name : `${binding.method.name}_${i}`);
        const variables = [...rule.pattern.matchAll(/\{([\w.]+)(?:=[^}]*)?\}/g)].map((m) => m[1]);
        const label = `${binding.method.name} ${rule.verb} ${rule.pattern}`;
        expect(verb, label).toBe(rule.verb.toLowerCase());
        expect(path, label).toBe(rule.pattern.replace(/\{([\w.]+)=[^}]*\}/g, '{$1}'));
        expect(op.parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name), label).toEqual(variables);
      });
    }
    expect(byId(doc, 'GetIdentity').path).toBe('/iam/v2beta1/identities/{uid}');
    expect(byId(doc, 'CreateGroup').path).toBe('/iam/v2beta1/groups/{parent}');
  });

  it('has POST /iam/v2beta1/groups, CreateGroup with no parent (a root organisation)', () => {
    const { path, verb, op } = byId(doc, 'CreateGroup_without_parent');
    expect([path, verb]).toEqual(['/iam/v2beta1/groups', 'post']);
    expect(op.parameters.filter((p: any) => p.in === 'path')).toEqual([]);
    expect(op.parameters.map((p: any) => p.name)).not.toContain('parent');
    expect(op.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/chainguard.platform.iam.v2beta1.Group');
    expect(op['x-required-capabilities']).toEqual(['CAP_IAM_GROUPS_CREATE']);
  });

  it('validates real answers of the gateway: a create, a get, a list and an error', async () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema(schema, `#/components/schemas/${name}`);
    const schemaFor = (id: string, status: string) => {
      const response = byId(doc, id).op.responses[status];
      const ref = response.$ref ? (doc as any).components.responses.Status : response;
      return ajv.getSchema(ref.content['application/json'].schema.$ref)!;
    };
    const check = (validate: ReturnType<typeof schemaFor>, body: unknown) => {
      const ok = validate(body);
      expect(ok, JSON.stringify(validate.errors)).toBe(true);
    };
    const made = await stack.client.post('/iam/v2beta1/groups', { name: 'openapi-org', description: 'd' });
    check(schemaFor('CreateGroup', '200'), made.body);
    check(schemaFor('GetGroup', '200'), (await stack.client.get(`/iam/v2beta1/groups/${made.body.uid}`)).body);
    check(schemaFor('ListGroups', '200'), (await stack.client.get('/iam/v2beta1/groups', { page_size: 1 })).body);
    check(schemaFor('CheckEligibility', '200'), (await stack.client.get('/iam/v2beta1/groups:checkEligibility')).body);
    const missing = await stack.client.get(`/iam/v2beta1/groups/${made.body.uid}/0123456789abcdef`);
    check(schemaFor('GetGroup', '404'), missing.body);
    // An answer that does not fit fails: the check can fail.
    expect(schemaFor('GetGroup', '200')({ uid: 7 })).toBe(false);
  });
});
