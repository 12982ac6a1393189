import net from 'node:net';
import os from 'node:os';
import type { EgressRefusalReason } from '@lazyboy/contracts';

/** What an address is, as far as a computer's egress is concerned. */
export type AddressClass = Exclude<EgressRefusalReason, 'domain-not-allowed' | 'unresolvable' | 'bad-request'> | 'public';

function blockList(v4: [string, number][], v6: [string, number][]): net.BlockList {
  const list = new net.BlockList();
  for (const [address, prefix] of v4) list.addSubnet(address, prefix, 'ipv4');
  for (const [address, prefix] of v6) list.addSubnet(address, prefix, 'ipv6');
  return list;
}

// Checked in this order; the first list that holds the address names its class.
const CLASSES: [Exclude<AddressClass, 'public' | 'this-host'>, net.BlockList][] = [
  ['unspecified', blockList([['0.0.0.0', 8]], [['::', 128]])],
  ['loopback', blockList([['127.0.0.0', 8]], [['::1', 128]])],
  // 169.254.169.254 (every cloud's metadata service) is link-local too.
  ['link-local', blockList([['169.254.0.0', 16]], [['fe80::', 10]])],
  ['multicast', blockList([['224.0.0.0', 4]], [['ff00::', 8]])],
  [
    'private-network',
    blockList(
      [
        ['10.0.0.0', 8],
        ['172.16.0.0', 12],
        ['192.168.0.0', 16],
        // Carrier-grade NAT: a home server behind one, and some providers' metadata (100.100.100.200).
        ['100.64.0.0', 10],
      ],
      [['fc00::', 7]],
    ),
  ],
  [
    'reserved',
    blockList(
      [
        ['192.0.0.0', 24],
        ['198.18.0.0', 15],
        ['240.0.0.0', 4],
      ],
      [
        // Deprecated IPv4-compatible addresses, discard-only, and site-local: never a real destination.
        ['::', 96],
        ['100::', 64],
        ['fec0::', 10],
      ],
    ),
  ],
];

/**
 * The IPv4 address an IPv6 one stands for, when it does (mapped ::ffff:a.b.c.d and NAT64 64:ff9b::a.b.c.d),
 * so that `::ffff:127.0.0.1` is judged as 127.0.0.1.
 */
export function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower)?.[1];
  if (dotted) return dotted;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Every address of this machine's interfaces: a computer must not reach the host through its LAN address. */
export function hostAddresses(): Set<string> {
  const addresses = new Set<string>();
  for (const entries of Object.values(os.networkInterfaces())) {
    for (const entry of entries ?? []) addresses.add(normalise(entry.address));
  }
  return addresses;
}

function normalise(address: string): string {
  const bare = address.replace(/%.*$/, '').toLowerCase();
  return embeddedIpv4(bare) ?? bare;
}

/** Classifies an IP literal; `hostOwn` is this machine's addresses (hostAddresses()). */
export function classifyAddress(address: string, hostOwn: ReadonlySet<string>): AddressClass {
  const bare = normalise(address);
  const family = net.isIP(bare);
  if (family === 0) return 'reserved';
  if (hostOwn.has(bare)) return 'this-host';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bare === '255.255.255.255') return 'multicast';
  for (const [name, list] of CLASSES) if (list.check(bare, type)) return name;
  return 'public';
}
