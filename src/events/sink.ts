/**
 * Which sinks a subscription may name. The contract says `https`; beyond that, a
 * sink the gateway would POST to on an address inside its own network (loopback,
 * link-local such as a cloud metadata service, private ranges) would let anyone
 * who may create a subscription make the gateway call those, so such a sink is
 * refused unless the deployment allows private sinks. Literal addresses are
 * judged here when the subscription is made; a hostname is judged on what it
 * resolves to when an event is delivered (deliverer.ts), since DNS can change.
 */
import { BlockList, isIP } from 'node:net';

const INTERNAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) INTERNAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fe80::', 10], ['fc00::', 7], ['ff00::', 8], ['64:ff9b::', 96]] as const) INTERNAL.addSubnet(net, prefix, 'ipv6');

/** Whether an IP address (v4 or v6 text) is loopback, link-local, private or otherwise not a public unicast address. */
export function isInternalAddress(address: string): boolean {
  // BlockList judges an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) by the IPv4 rules.
  const family = isIP(address);
  return family !== 0 && INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The URL's host as an address or name: brackets of an IPv6 literal removed, lower case, no trailing dot. */
export function sinkHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
}

/** Why this sink may not be used as it is written, or undefined when it may (a hostname is judged again on delivery). */
export function sinkRefusal(sink: string, allowPrivate: boolean): string | undefined {
  if (!URL.canParse(sink)) return 'must be an https URL';
  const url = new URL(sink);
  if (url.protocol !== 'https:') return 'must be an https URL';
  if (allowPrivate) return undefined;
  const host = sinkHost(url);
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not name a loopback host';
  if (isIP(host) && isInternalAddress(host)) return 'must not be a loopback, link-local or private address';
  return undefined;
}
