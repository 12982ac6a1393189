import { spawn } from 'node:child_process';
import { closeSync, openSync, readlinkSync } from 'node:fs';
import type net from 'node:net';
import { DesktopSetupError } from '../display/errors.js';

const SETUP_TIMEOUT_MS = 10_000;

/**
 * A network namespace of its own for one screen: only a loopback, no route anywhere. Everything of the
 * screen (X server, session bus, window manager, Chromium, x11vnc, the agent's shell and GUI programs)
 * starts inside it, so none of it can open a connection to the host's loopback services, to another
 * screen's or computer's, or to the LAN; the one way out is the egress proxy's listener on its loopback.
 *
 * The namespace is held by a descriptor of the worker's (no holder process to keep alive or to clean up):
 * nsenter reaches it as /proc/<worker>/fd/<n>, which names this very namespace even after its first
 * process is gone, and it disappears with the worker's descriptor and the last process inside.
 */
export class NetworkIsland {
  private fd: number | undefined;
  private readonly listeners: net.Server[] = [];

  private constructor(fd: number) {
    this.fd = fd;
  }

  /** Needs root (CAP_SYS_ADMIN): the worker makes islands only when it runs the desktop as its own user. */
  static async create(): Promise<NetworkIsland> {
    // unshare creates the namespace; inside, lo is brought up, and the process waits until we hold the
    // namespace by a descriptor before it exits.
    const holder = spawn(
      '/usr/bin/unshare',
      ['--net', '--', '/bin/sh', '-c', 'ip link set lo up && echo ready && exec cat >/dev/null'],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
      },
    );
    let stderr = '';
    holder.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new DesktopSetupError('creating a network namespace timed out')), SETUP_TIMEOUT_MS);
        holder.stdout.setEncoding('utf8').once('data', () => {
          clearTimeout(timer);
          resolve();
        });
        holder.once('error', (error) => reject(new DesktopSetupError(`cannot create a network namespace: ${error.message}`)));
        holder.once('exit', (code) => {
          clearTimeout(timer);
          reject(new DesktopSetupError(`cannot create a network namespace (unshare exited ${code}): ${stderr.trim()}`));
        });
      });
      const fd = openSync(`/proc/${holder.pid}/ns/net`, 'r');
      const island = new NetworkIsland(fd);
      if (readlinkSync(island.path) === readlinkSync('/proc/self/ns/net')) {
        island.close();
        throw new DesktopSetupError('unshare --net left the process in the host network namespace');
      }
      return island;
    } finally {
      holder.stdin.end();
      holder.stdout.destroy();
    }
  }

  /** What nsenter --net= takes to enter this island. */
  get path(): string {
    if (this.fd === undefined) throw new DesktopSetupError('the network island is closed');
    return `/proc/${process.pid}/fd/${this.fd}`;
  }

  /**
   * A listening socket on `host`:`port` inside the island that this process serves. A short-lived Node
   * child made inside the island creates it and hands it over (Node's IPC passes the socket itself), so
   * the worker accepts connections there while everything it connects to leaves from its own namespace.
   */
  async listen(port: number, host = '127.0.0.1'): Promise<net.Server> {
    const script = `
      const server = require('node:net').createServer();
      server.once('error', (error) => { process.send({ error: error.message }); process.exit(1); });
      server.listen(${port}, ${JSON.stringify(host)}, () => process.send('listening', server));
      process.on('disconnect', () => process.exit(0));
    `;
    const child = spawn('/usr/bin/nsenter', [`--net=${this.path}`, '--', process.execPath, '-e', script], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { PATH: '/usr/bin:/bin' },
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const server = await new Promise<net.Server>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new DesktopSetupError('listening inside the network island timed out'));
      }, SETUP_TIMEOUT_MS);
      child.once('message', (message: unknown, handle: unknown) => {
        clearTimeout(timer);
        if (message === 'listening' && handle) resolve(handle as net.Server);
        else reject(new DesktopSetupError(`cannot listen inside the network island: ${JSON.stringify(message)}`));
        // The child waits for this before it exits: had it exited once it sent, its exit could reach this
        // process before the socket did (under load), and a good socket would be taken for a failure.
        if (child.connected) child.disconnect();
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new DesktopSetupError(`cannot listen inside the network island (exit ${code}): ${stderr.trim()}`));
      });
    });
    this.listeners.push(server);
    return server;
  }

  close(): void {
    for (const server of this.listeners.splice(0)) server.close();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
