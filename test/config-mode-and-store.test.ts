/** The store and mode settings: flags and environment, where the store lives, and the one-store rule. */
import { describe, expect, it } from 'vitest';
import { ConfigError, describeStore, loadConfig, storeLocation, usage } from '../src/config.ts';

describe('mode and store settings', () => {
  it('default to translate mode over an in-memory store', () => {
    const config = loadConfig([], {});
    expect(config.mode).toBe('translate');
    expect(config.dataDir).toBeUndefined();
    expect(config.store).toBeUndefined();
    expect(storeLocation(config)).toBe(':memory:');
  });

  it('come from flags or V2GW_* variables, flags winning', () => {
    expect(loadConfig(['--mode', 'native'], { V2GW_MODE: 'translate' }).mode).toBe('native');
    expect(loadConfig([], { V2GW_MODE: 'native', V2GW_DATA_DIR: '/var/lib/v2gw' })).toMatchObject({ mode: 'native', dataDir: '/var/lib/v2gw' });
    expect(storeLocation(loadConfig([], { V2GW_STORE: 'postgres://u:p@db/v2gw' }))).toBe('postgres://u:p@db/v2gw');
    expect(storeLocation(loadConfig(['--data-dir', '/data'], {}))).toBe('/data');
  });

  it('refuse an unknown mode and a store URL that is not PostgreSQL', () => {
    expect(() => loadConfig(['--mode', 'hybrid'], {})).toThrow(/--mode \/ V2GW_MODE/);
    expect(() => loadConfig(['--store', 'mysql://db/x'], {})).toThrow(/--store \/ V2GW_STORE/);
    expect(loadConfig(['--store', 'postgresql://db/x'], {}).store).toBe('postgresql://db/x');
  });

  it('refuse --data-dir together with --store, from any source', () => {
    expect(() => loadConfig(['--data-dir', '/d', '--store', 'postgres://db/x'], {})).toThrow(ConfigError);
    expect(() => loadConfig(['--data-dir', '/d'], { V2GW_STORE: 'postgres://db/x' })).toThrow(/mutually exclusive/);
  });

  it('are listed in --help', () => {
    for (const flag of ['--mode', '--data-dir', '--store']) expect(usage()).toContain(flag);
  });
});

describe('describeStore', () => {
  it('masks a PostgreSQL password and leaves other locations alone', () => {
    expect(describeStore('postgres://app:s3cret@db:5432/v2gw')).toBe('postgres://app:***@db:5432/v2gw');
    expect(describeStore('postgres://db/v2gw')).toBe('postgres://db/v2gw');
    expect(describeStore('/var/lib/v2gw')).toBe('/var/lib/v2gw');
    expect(describeStore(':memory:')).toBe(':memory:');
  });
});
