/**
 * A comparison worker that fails as it loads, every time, with a credential in its error as a careless
 * one might (test/compare/off-thread.test.ts, dead-worker.test.ts): the gateway must not log it.
 */
throw new Error('cannot load: Bearer start-secret-token-77');
