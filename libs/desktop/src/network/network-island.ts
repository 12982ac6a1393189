import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import type net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { DesktopSetupError } from '../display/errors.js';

const run = promisify(execFile);

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
 *
 * A worker without CAP_SYS_ADMIN (root in a Docker container, whose default capabilities lack it) cannot
 * make a network namespace directly. It makes a user namespace first, mapping every uid and gid to itself
 * (CAP_SETUID and CAP_SETGID allow that; CAP_SETFCAP, since the map includes root), and the network namespace inside it: the worker, the namespace's
 * owner, may enter both, and a process started there as the computer's user is that same user everywhere,
 * with no capability in the worker's namespace and none over the island's network.
 */
export interface NetworkIslandOptions {
  /** Hold the island in a user namespace of its own (see above). Default: when CAP_SYS_ADMIN is missing. */
  ownUserNamespace?: boolean;
}

/** Every uid (gid) of the island's user namespace is the same one outside: 0 up to 2^32 - 2. */
const IDENTITY_MAP = '0 0 4294967295\n';
/** CAP_SYS_ADMIN's bit in /proc/self/status's CapEff. */
const CAP_SYS_ADMIN = 21n;

export class NetworkIsland {
  private fd: number | undefined;
  private userFd: number | undefined;
  private readonly listeners: net.Server[] = [];

  private constructor(fd: number, userFd: number | undefined) {
    this.fd = fd;
    this.userFd = userFd;
  }

  /**
   * Needs root: the worker makes islands only when it runs the desktop as its own user. With CAP_SYS_ADMIN
   * a bare network namespace; without, one inside a user namespace of its own.
   */
  static async create(options: NetworkIslandOptions = {}): Promise<NetworkIsland> {
    const ownUsers = options.ownUserNamespace ?? !hasCapability(CAP_SYS_ADMIN);
    // unshare creates the namespace; inside, lo is brought up, and the process waits until we hold the
    // namespace by a descriptor before it exits. With a user namespace, the holder waits for its maps (the
    // shell's `read`), and the worker brings lo up itself through nsenter: the holder's shell started before
    // the maps, with no capability there, and under no_new_privs no program it runs could gain one.
    const holder = spawn(
      '/usr/bin/unshare',
      [
        ...(ownUsers ? ['--user'] : []),
        '--net',
        '--',
        '/bin/sh',
        '-c',
        `${ownUsers ? 'read _' : 'ip link set lo up'} && echo ready && exec cat >/dev/null`,
      ],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
      },
    );
    let stderr = '';
    holder.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    try {
      if (ownUsers) await mapIdentity(holder);
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
      const userFd = ownUsers ? openSync(`/proc/${holder.pid}/ns/user`, 'r') : undefined;
      const island = new NetworkIsland(fd, userFd);
      if (readlinkSync(island.path) === readlinkSync('/proc/self/ns/net')) {
        island.close();
        throw new DesktopSetupError('unshare --net left the process in the host network namespace');
      }
      if (ownUsers) await island.bringLoopbackUp();
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

  /** What nsenter --user= takes first, when the island lives in a user namespace of its own. */
  get userPath(): string | undefined {
    if (this.fd === undefined) throw new DesktopSetupError('the network island is closed');
    return this.userFd === undefined ? undefined : `/proc/${process.pid}/fd/${this.userFd}`;
  }

  /** nsenter's options entering the island (its user namespace, when it has one, before its network). */
  get enterArgs(): string[] {
    const userPath = this.userPath;
    return [...(userPath ? [`--user=${userPath}`] : []), `--net=${this.path}`];
  }

  /** `ip link set lo up` inside, as the island's root (nsenter gives it every capability there). */
  private async bringLoopbackUp(): Promise<void> {
    try {
      await run('/usr/bin/nsenter', [...this.enterArgs, '--', 'ip', 'link', 'set', 'lo', 'up'], {
        timeout: SETUP_TIMEOUT_MS,
        env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
      });
    } catch (error) {
      this.close();
      const stderr = (error as { stderr?: string }).stderr?.trim();
      throw new DesktopSetupError(`cannot bring the network island's loopback up: ${stderr || (error as Error).message}`);
    }
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
    const child = spawn('/usr/bin/nsenter', [...this.enterArgs, '--', process.execPath, '-e', script], {
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
    if (this.userFd !== undefined) closeSync(this.userFd);
    this.fd = undefined;
    this.userFd = undefined;
  }
}

/** Whether this process holds capability `bit` in its own user namespace (CapEff of /proc/self/status). */
function hasCapability(bit: bigint): boolean {
  const line = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return line !== null && ((BigInt(`0x${line[1]}`) >> bit) & 1n) === 1n;
}

/** Maps the holder's user namespace onto this one, uid for uid, then lets it go on. */
async function mapIdentity(holder: ChildProcess): Promise<void> {
  // spawn returns before unshare has made the namespace: the maps are the new namespace's to write.
  const own = readlinkSync('/proc/self/ns/user');
  const deadline = Date.now() + SETUP_TIMEOUT_MS;
  for (;;) {
    let current: string | undefined;
    try {
      current = readlinkSync(`/proc/${holder.pid}/ns/user`);
    } catch {
      current = undefined; // gone: the exit handler reports it
    }
    if (current === undefined || current !== own) break;
    if (Date.now() > deadline) throw new DesktopSetupError('unshare --user did not make a user namespace in time');
    await sleep(5);
  }
  try {
    // gid_map before the shell can drop anything; setgroups stays allowed (a parent with CAP_SETGID writes it).
    writeFileSync(`/proc/${holder.pid}/uid_map`, IDENTITY_MAP);
    writeFileSync(`/proc/${holder.pid}/gid_map`, IDENTITY_MAP);
  } catch (error) {
    holder.kill('SIGKILL');
    throw new DesktopSetupError(
      `cannot map the network island's user namespace (the worker needs CAP_SETUID, CAP_SETGID and CAP_SETFCAP): ${(error as Error).message}`,
    );
  }
  holder.stdin?.write('\n');
}
