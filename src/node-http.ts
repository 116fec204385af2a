/**
 * `node:http`, taken as Node's CommonJS module object rather than through `import … from 'node:http'`.
 * An ES module import builds the module's whole namespace, which reads `http.WebSocket` and its kin:
 * lazy getters that load Node's own bundled copy of undici (~3 MB of RSS kept for the life of the
 * process, bench/README.md, Memory). The gateway uses none of them; its v1 client is the undici package.
 */
export const http: typeof import('node:http') = process.getBuiltinModule('node:http');
