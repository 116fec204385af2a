/**
 * The RPCs of the contract the gateway does not serve in either mode, each with
 * the reason its UNIMPLEMENTED answer gives and the README's "Every RPC" table
 * shows. (A mode that cannot serve a method a mapping binds says so beside the
 * method: a custom method's `unserved`, a resource's `keptInStore`.)
 * `test/contract/served.test.ts` fails when an RPC of the protos is neither
 * served nor declared, and when one listed here is served after all.
 */
export const UNSERVED: Readonly<Record<string, string>> = {};
