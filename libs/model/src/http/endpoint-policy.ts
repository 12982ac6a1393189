import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { BlockList, type LookupFunction } from 'node:net';
import { ModelEndpointRefusedError } from '../errors.js';
import { displayUrl } from './endpoint.js';

// Which model servers a base URL that people typed (an agent's or a workspace's settings) may reach.
// The API applies it twice: when the settings are saved (a clear 400 naming the field) and on every
// connection the model client makes, because a name may resolve elsewhere by then (DNS rebinding). The
// operator's own environment is trusted and goes unchecked.
//
// - Always refused: the unspecified address (0.0.0.0/8, ::, which Linux connects to this machine),
//   link-local (169.254/16 with the cloud metadata address, fe80::/10), the metadata addresses clouds keep
//   elsewhere (fd00:ec2::254 AWS, 100.100.100.200 Alibaba, 192.0.0.192 Oracle), IPv4-compatible IPv6
//   (::/96), a metadata name, any scheme but http(s), and base URLs carrying credentials, a query or a fragment.
// - Refused unless local model servers are allowed (Ollama on 127.0.0.1 or on a home LAN is a real use, and
//   an instance admin's choice): loopback (127/8, ::1, localhost and *.localhost), private networks
//   (10/8, 172.16/12, 192.168/16, the carrier-grade NAT 100.64/10, IPv6 ULA fc00::/7), the host seen from a
//   container (host.docker.internal) and the cluster's own service names (*.svc, *.cluster.local).
// - Refused when the operator lists them: further networks (the cluster's pod and service ranges).
// IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) match their IPv4 rules (BlockList compares them so).

export interface ModelEndpointPolicyOptions {
  /** Loopback, private networks, the container host and cluster service names are accepted (an instance admin's choice). */
  allowLoopback?: boolean;
  /** Networks refused besides the built-in ones, as `address/prefix` (or a single address). */
  blockedNetworks?: readonly string[];
  /** The resolver the connections use; default dns.lookup. Tests give their own names. */
  resolve?: LookupFunction;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const UNSPECIFIED = new BlockList();
UNSPECIFIED.addSubnet('0.0.0.0', 8, 'ipv4');
// Also the deprecated IPv4-compatible form (::127.0.0.1 and the like); `::` and ::1 are inside it.
UNSPECIFIED.addSubnet('::', 96, 'ipv6');

// Before PRIVATE: two of them lie inside private ranges, and these stay refused when local servers are allowed.
const METADATA = new BlockList();
METADATA.addAddress('fd00:ec2::254', 'ipv6');
METADATA.addAddress('100.100.100.200', 'ipv4');
METADATA.addAddress('192.0.0.192', 'ipv4');

const PRIVATE = new BlockList();
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
PRIVATE.addSubnet('100.64.0.0', 10, 'ipv4');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');

const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');

const LOOPBACK_NAMES = new Set(['localhost', 'host.docker.internal', 'gateway.docker.internal']);
const LOOPBACK_SUFFIXES = ['.localhost'];
const CLUSTER_SUFFIXES = ['.svc', '.cluster.local'];
const METADATA_NAMES = new Set(['metadata.google.internal']);

const LOCAL_OFF = 'local model servers are not allowed on this instance (an instance admin can allow them)';

/** Parses `address/prefix` (or a single address) into `list`; throws naming the entry when it is none. */
function addNetwork(list: BlockList, entry: string): void {
  const [address = '', prefix, extra] = entry.trim().split('/');
  const family = net.isIP(address);
  const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
  if (family === 0 || extra !== undefined || !Number.isInteger(bits) || bits < 0 || bits > (family === 6 ? 128 : 32)) {
    throw new RangeError(`'${entry}' is not a network (address/prefix, e.g. 10.96.0.0/12)`);
  }
  list.addSubnet(address, bits, family === 6 ? 'ipv6' : 'ipv4');
}

function hasSuffix(host: string, suffixes: readonly string[]): boolean {
  return suffixes.some((suffix) => host.endsWith(suffix) || host === suffix.slice(1));
}

/** The model endpoint policy: one per setting (allow loopback or not), reused by every client it governs. */
export class ModelEndpointPolicy {
  readonly allowLoopback: boolean;
  private readonly blocked = new BlockList();
  private readonly resolve: LookupFunction;
  private readonly agents = new Map<string, http.Agent>();

  constructor(options: ModelEndpointPolicyOptions = {}) {
    this.allowLoopback = options.allowLoopback ?? false;
    for (const entry of options.blockedNetworks ?? []) addNetwork(this.blocked, entry);
    this.resolve = options.resolve ?? (dns.lookup as LookupFunction);
  }

  /** Why the base URL is refused (a phrase after "it …"), or undefined when it is allowed. */
  refusalOf(baseUrl: string): string | undefined {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      return 'is not a URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'is not an http(s) URL';
    if (url.username || url.password) return 'carries a user name or password (set the key instead)';
    if (url.search || url.hash) return 'carries a query or a fragment';
    // URL has already turned 2130706433, 0x7f.1 and 127.1 into 127.0.0.1, and lower-cased names.
    const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
    if (net.isIP(host) !== 0) return this.refusalOfAddress(host);
    if (METADATA_NAMES.has(host)) return 'names the cloud metadata service';
    if (LOOPBACK_NAMES.has(host) || hasSuffix(host, LOOPBACK_SUFFIXES)) {
      return this.allowLoopback ? undefined : `names this machine, and ${LOCAL_OFF}`;
    }
    if (hasSuffix(host, CLUSTER_SUFFIXES)) {
      return this.allowLoopback ? undefined : `names a service of the cluster, and ${LOCAL_OFF}`;
    }
    return undefined;
  }

  /** Why a connection to this IP address is refused, or undefined when it is allowed. */
  refusalOfAddress(address: string): string | undefined {
    const family = net.isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (LOOPBACK.check(address, family)) {
      return this.allowLoopback ? undefined : `is a loopback address (this machine), and ${LOCAL_OFF}`;
    }
    if (UNSPECIFIED.check(address, family)) return 'is an unspecified address';
    if (LINK_LOCAL.check(address, family)) return 'is a link-local address (where cloud metadata lives)';
    if (METADATA.check(address, family)) return 'is a cloud metadata address';
    // The operator's list wins over allowed local servers: the cluster's own ranges are private ones.
    if (this.blocked.check(address, family)) return 'is in a network this instance refuses (LAZYBOY_MODEL_BLOCKED_NETWORKS)';
    if (PRIVATE.check(address, family)) {
      return this.allowLoopback ? undefined : `is a private network address (a LAN), and ${LOCAL_OFF}`;
    }
    return undefined;
  }

  /** Throws ModelEndpointRefusedError when the base URL is refused. */
  assertAllowed(baseUrl: string, provider?: string): void {
    const refusal = this.refusalOf(baseUrl);
    if (refusal) throw refused(baseUrl, refusal, provider);
  }

  /**
   * The resolver of this policy's connections: every address a name resolves to is checked, and the socket
   * connects to exactly the addresses checked (no second lookup an attacker's DNS could answer otherwise).
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address);
      for (const candidate of addresses) {
        const refusal = this.refusalOfAddress(candidate);
        if (refusal)
          return callback(refused(`http://${hostname}`, `resolves to ${candidate}, which ${refusal}`), address, family);
      }
      callback(null, address, family);
    });
  };

  /**
   * The connection pool of this policy for a protocol: its sockets were all opened through `lookup`, so
   * none of them was connected for a request the policy did not govern.
   */
  agentFor(protocol: 'http:' | 'https:'): http.Agent {
    let agent = this.agents.get(protocol);
    if (!agent) {
      const options = { keepAlive: true, lookup: this.lookup };
      agent = protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      this.agents.set(protocol, agent);
    }
    return agent;
  }
}

function refused(baseUrl: string, refusal: string, provider?: string): ModelEndpointRefusedError {
  const host = (() => {
    try {
      return new URL(baseUrl).host;
    } catch {
      return displayUrl(baseUrl);
    }
  })();
  return new ModelEndpointRefusedError(
    `the model server ${host} is refused: it ${refusal}`,
    provider === undefined ? {} : { provider },
  );
}
