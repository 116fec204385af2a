/** What is served, declared once: every RPC of the protos is served or listed unserved with a reason, and docs/api.md's table is the one the contract makes. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bindContract, forMode, unservedMethods } from '../../src/contract/bindings.ts';
import { apiServices } from '../../src/contract/registry.ts';
import { BEGIN, END, servedTable, withTable } from '../../src/contract/served-table.ts';
import { MAPPINGS } from '../../mappings/index.ts';
import { UNSERVED } from '../../mappings/unserved.ts';
import { unservedRpc } from '../support/contract.ts';
import { startStack } from '../support/stack.ts';

const services = apiServices();
const bindings = bindContract(services, MAPPINGS);
const fullName = (m: { parent: { typeName: string }; name: string }) => `${m.parent.typeName}.${m.name}`;

describe('what is served', () => {
  it('every RPC of the protos is served, or declared unserved with a reason', () => {
    const missing = unservedMethods(services, bindings).map(fullName).filter((name) => !UNSERVED[name]?.trim());
    expect(missing).toEqual([]);
  });

  it('nothing declared unserved is served, and every declared name is an RPC of the protos', () => {
    const served = new Set(bindings.map((b) => fullName(b.method)));
    const all = new Set(services.flatMap((s) => s.methods.map(fullName)));
    for (const name of Object.keys(UNSERVED)) {
      expect(served.has(name), `${name} is served but still declared unserved`).toBe(false);
      expect(all.has(name), `${name} is not an RPC of the protos`).toBe(true);
    }
  });

  it("docs/api.md's table is the one npm run docs:served makes", () => {
    const document = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    expect(document).toContain(BEGIN);
    expect(document).toContain(END);
    expect(withTable(document, servedTable(services, bindings, UNSERVED))).toBe(document);
  });

  it('an unserved RPC answers UNIMPLEMENTED with its reason, on REST', async () => {
    // Whichever RPC translate mode does not serve: its route with a UIDP in every variable.
    const rpc = unservedRpc('translate')!;
    const reason = { ...UNSERVED, ...forMode(bindings, 'translate').reasons }[rpc.fullName];
    expect(reason).toBeTruthy();
    const stack = await startStack();
    try {
      const reply = await stack.client.call(rpc.verb, rpc.path, rpc.verb === 'GET' || rpc.verb === 'DELETE' ? {} : { body: {} });
      expect(reply.status).toBe(501);
      expect(reply.body.code).toBe(12);
      expect(reply.body.message).toContain(reason);
    } finally {
      await stack.close();
    }
  });

  it('translate mode serves what v1 lacks from the store; a mode that cannot serve a method says why', () => {
    const groups = MAPPINGS.find((m) => m.name === 'groups')!;
    const storeKept = { ...groups, keptInStore: 'v1 keeps no such thing' };
    const all = bindContract(services, [storeKept]);
    expect(forMode(all, 'translate')).toEqual({ served: all, reasons: {} });
    expect(forMode(all, 'native').served).toEqual(all);
    const verb = (implementation: object) => bindContract(services, [{ ...groups, operations: [], methods: { custom: { CheckEligibility: implementation } } }]);
    const storeVerb = verb({ native: async () => ({}) });
    expect(storeVerb.map((b) => b.method.name)).toEqual(['CheckEligibility']);
    expect(forMode(storeVerb, 'translate').served).toHaveLength(1);
    const v1Verb = verb({ translate: async () => ({}), unserved: { native: 'the store cannot tell' } });
    expect(forMode(v1Verb, 'translate').served).toHaveLength(1);
    expect(forMode(v1Verb, 'native')).toEqual({ served: [], reasons: { 'chainguard.platform.iam.v2beta1.GroupsService.CheckEligibility': 'the store cannot tell' } });
  });
});
