import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { launchSpec, type RunAs } from '../process/run-as.js';
import { NetworkIsland } from './network-island.js';

const run = promisify(execFile);
const asRoot = process.getuid?.() === 0;
const describeAsRoot = asRoot ? describe : describe.skip;

/** A worker in a Docker container has no CAP_SYS_ADMIN: its islands live in a user namespace of their own. */
describeAsRoot('a network island held in a user namespace of its own', () => {
  const user = { uid: 4_000_123, gid: 4_000_123 };
  let island: NetworkIsland;
  let runAs: RunAs;
  let host: http.Server;
  let hostPort: number;
  let scratch: string;

  /** `script` run by bash in the island as `user`, the way the worker starts a screen's programs. */
  const inIsland = (script: string) => {
    const launch = launchSpec('/bin/bash', ['-c', script], runAs);
    return spawnSync(launch.command, launch.args, { encoding: 'utf8', timeout: 15_000, cwd: '/' });
  };

  beforeAll(async () => {
    island = await NetworkIsland.create({ ownUserNamespace: true });
    runAs = { ...user, netns: island.path, userns: island.userPath };
    host = http.createServer((_req, res) => res.end('host'));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    hostPort = (host.address() as AddressInfo).port;
    scratch = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-island-users-'));
    spawnSync('chmod', ['0777', scratch]);
  });
  afterAll(() => {
    island?.close();
    host?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('has a user namespace and a network of its own, with a loopback and nothing else', () => {
    expect(island.userPath).toBeDefined();
    const result = inIsland('ip -o link | cut -d: -f2; cat /proc/self/uid_map');

    expect(result.status).toBe(0);
    expect(result.stdout.split('\n')[0]?.trim()).toBe('lo');
    expect(result.stdout).not.toMatch(/eth|veth|lazy/);
    // Every uid is itself: a file made inside is the computer's user's on the worker's side too.
    expect(result.stdout).toMatch(/^\s*0\s+0\s+4294967295$/m);
  });

  it("runs the computer's programs as its user, with no way to the worker's loopback and no power over the island", () => {
    const file = path.join(scratch, 'made-inside');
    const result = inIsland(
      `touch ${file}; id -u; ` +
        `(exec 3<>/dev/tcp/127.0.0.1/${hostPort}) 2>/dev/null && echo reached || echo refused; ` +
        `ip link set lo down 2>/dev/null && echo changed || echo denied; grep CapEff /proc/self/status`,
    );

    expect(result.stdout).toContain(`${user.uid}\nrefused\ndenied\nCapEff:\t0000000000000000`);
    expect(statSync(file).uid).toBe(user.uid);
  });

  it("serves a listener inside the island that the island's programs reach and the worker accepts", async () => {
    const listener = await island.listen(0);
    const port = (listener.address() as AddressInfo).port;
    const accepted = new Promise<void>((resolve) => listener.once('connection', (socket) => (socket.end('hi'), resolve())));
    // Not spawnSync: this process must be free to accept meanwhile.
    const launch = launchSpec('/bin/bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3`], runAs);
    const result = await run(launch.command, launch.args, { encoding: 'utf8', timeout: 15_000, cwd: '/' });
    await accepted;

    expect(result.stdout).toBe('hi');
    listener.close();
  });
});
