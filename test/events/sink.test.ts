/** Which sinks a subscription may name (src/events/sink.ts): https only; no internal address unless allowed. */
import { describe, expect, it } from 'vitest';
import { isInternalAddress, sinkRefusal } from '../../src/events/sink.ts';

describe('sink rules', () => {
  it.each([
    '127.0.0.1', '127.9.9.9', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '224.0.0.1', '::1', '::', 'fe80::1', 'fd12::1', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::a00:1',
  ])('%s is internal', (address) => {
    expect(isInternalAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(isInternalAddress(address)).toBe(false);
  });

  it('refuses anything but https, and internal literals and localhost names unless private sinks are allowed', () => {
    expect(sinkRefusal('https://hooks.example.com/x', false)).toBeUndefined();
    expect(sinkRefusal('http://hooks.example.com/x', false)).toMatch(/https/);
    expect(sinkRefusal('http://127.0.0.1/x', true)).toMatch(/https/);
    expect(sinkRefusal('https://[::ffff:7f00:1]/x', false)).toMatch(/private/);
    expect(sinkRefusal('https://LOCALHOST./x', false)).toMatch(/loopback/);
    expect(sinkRefusal('https://a.localhost/x', false)).toMatch(/loopback/);
    expect(sinkRefusal('https://127.0.0.1:8443/x', true)).toBeUndefined();
  });
});
