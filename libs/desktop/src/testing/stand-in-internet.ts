import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NetworkIsland } from '../network/network-island.js';
import { processGone } from '../process/proc-table.js';

const PREFIX = 'lbnet';
/** The host ends of this process's running stand-ins: any other end named after this process was leaked. */
const live = new Set<string>();

/**
 * "The internet" for tests: a network namespace of its own joined to this one by a veth pair, with a
 * TEST-NET-3 address (203.0.113.0/24: not a private range, so the egress policy treats it as any public
 * host). Servers run in this process but listen inside that namespace, so a computer reaches them only
 * through its egress proxy, exactly as it would reach a real site. `lan: true` gives a 10.x address instead,
 * for the "private networks" policy. Needs root.
 */
export class StandInInternet {
  private constructor(
    private readonly island: NetworkIsland,
    private readonly hostInterface: string,
    /** The namespace's address, where served sites answer. */
    readonly address: string,
  ) {}

  static async start(options: { lan?: boolean } = {}): Promise<StandInInternet> {
    clearLeftovers();
    const island = await NetworkIsland.create();
    // A /30 per Jest worker and kind, so parallel suites never share a subnet.
    const worker = Number(process.env['JEST_WORKER_ID'] ?? 0) % 60;
    const base = options.lan ? `10.250.${worker}` : '203.0.113';
    const offset = options.lan ? 0 : worker * 4;
    const hostAddress = `${base}.${offset + 1}`;
    const address = `${base}.${offset + 2}`;
    const hostInterface = `${PREFIX}${options.lan ? 'l' : 'i'}${process.pid}`.slice(0, 15);
    const inside = `${hostInterface.slice(0, 13)}ns`;
    // Made inside the namespace, then one end is moved out to ours (the namespace has no name to move into).
    run(['nsenter', `--net=${island.path}`, 'ip', 'link', 'add', hostInterface, 'type', 'veth', 'peer', 'name', inside]);
    run(['nsenter', `--net=${island.path}`, 'ip', 'link', 'set', hostInterface, 'netns', String(process.pid)]);
    run(['nsenter', `--net=${island.path}`, 'ip', 'addr', 'add', `${address}/30`, 'dev', inside]);
    run(['nsenter', `--net=${island.path}`, 'ip', 'link', 'set', inside, 'up']);
    run(['ip', 'addr', 'add', `${hostAddress}/30`, 'dev', hostInterface]);
    run(['ip', 'link', 'set', hostInterface, 'up']);
    live.add(hostInterface);
    return new StandInInternet(island, hostInterface, address);
  }

  /** Serves `handler` at http://<address>:<port>/. */
  async serve(handler: http.RequestListener, port = 80): Promise<{ url: string; close(): void }> {
    const listener = await this.island.listen(port, this.address);
    const server = http.createServer(handler);
    listener.on('connection', (socket) => server.emit('connection', socket));
    const actual = (listener.address() as AddressInfo).port;
    return {
      url: `http://${this.address}${actual === 80 ? '' : `:${actual}`}/`,
      close: () => {
        listener.close();
        server.closeAllConnections();
      },
    };
  }

  /** Serves static pages (`pages` maps paths to HTML). */
  serveSite(pages: Record<string, string>, port = 80): Promise<{ url: string; close(): void }> {
    return this.serve((req, res) => {
      const page = pages[new URL(req.url ?? '/', 'http://x').pathname];
      res.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page ?? 'not found');
    }, port);
  }

  stop(): void {
    spawnSync('ip', ['link', 'del', this.hostInterface]);
    live.delete(this.hostInterface);
    this.island.close();
  }
}

function run(argv: string[]): void {
  const result = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${argv.join(' ')} failed: ${result.stderr.trim()}`);
}

/**
 * Veth ends left in this namespace by an earlier, killed test run (their creator's pid is gone) or by a
 * suite of this Jest worker whose teardown failed before stopping its stand-in: left there, it would hold
 * the name and the subnet, and every later suite of the worker would fail to start one.
 */
function clearLeftovers(): void {
  const links = spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).stdout ?? '';
  for (const name of links.matchAll(new RegExp(`^\\d+: (${PREFIX}[il](\\d+))@`, 'gm'))) {
    const pid = Number(name[2]);
    if (pid === process.pid ? live.has(name[1]!) : !processGone(pid)) continue;
    spawnSync('ip', ['link', 'del', name[1]!]);
  }
}
