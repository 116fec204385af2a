/**
 * The gateway's release, read once from package.json. The one module that reads it, one folder below the
 * project's root in the sources (src/) and in the build (dist/src/, beside a copy of package.json in dist/).
 */
import { readFileSync } from 'node:fs';

export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
