import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { browserRoutes, workerRoutes, type AgentComputerView } from '@lazyboy/contracts';
import { desktopUserName } from '@lazyboy/desktop';
import { WorkerClient } from '../../apps/api/src/computers/worker-client.js';
import { signUp, type TestUser } from '../support/index.js';
import { scanProcesses, type ScannedProcess } from '../../libs/desktop/src/testing/process-scan.js';
import { runCli, stackEnv, startUp, type RunningUp } from './stack-run.js';

const asRoot = process.getuid?.() === 0;

/** A computer of the stack, booted with two agents' screens, used like an agent would, then suspended. */
interface SuspendedComputer {
  id: string;
  uid: number;
  workerPid: number;
  workerPort: number;
  /** Its runtime directory and its shell-log folder in the temporary directory. */
  tempDirs: string[];
}

async function api<T>(apiUrl: string, user: TestUser, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${apiUrl}${route}`, {
    method,
    headers: { cookie: user.cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** The environment of a process as a map (we are root). */
function environ(p: ScannedProcess): Map<string, string> {
  return new Map(p.environ.split('\n').map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

async function bootAndSuspend(up: RunningUp): Promise<SuspendedComputer> {
  const apiUrl = `http://127.0.0.1:${up.state().ports.api}`;
  const owner = await signUp(apiUrl);
  const agents = [];
  for (const name of ['Ada', 'Bob']) {
    agents.push(await api<{ id: string }>(apiUrl, owner, 'POST', `/api/workspaces/${owner.workspaceId}/agents`, { name }));
  }
  // The workspace's team computer, with one screen per agent.
  let view: AgentComputerView | undefined;
  for (const agent of agents) view = await api<AgentComputerView>(apiUrl, owner, 'POST', `/api/agents/${agent.id}/computer/boot`);
  const computerId = view!.computer!.id;
  const uid = Number(execFileSync('id', ['-u', desktopUserName(computerId)], { encoding: 'utf8' }).trim());

  // What a run does on the computer: a browser observation and a shell command with a job left in the
  // background, straight at the worker with its control token (which root can read from its environment).
  const worker = scanProcesses().find(
    (p) => environ(p).get('LAZYBOY_COMPUTER_ID') === computerId && p.environ.includes('LAZYBOY_CONTROL_TOKEN='),
  );
  if (!worker) throw new Error(`no worker serves computer ${computerId}`);
  const workerEnv = environ(worker);
  const workerPort = Number(workerEnv.get('LAZYBOY_WORKER_PORT'));
  // As the run's executor would, with the highest execution fence there is, and the binding's fence: a new
  // computer's first boot binds its worker with fence 1 (a higher one would lock the API itself out).
  const client = new WorkerClient({
    baseUrl: `http://127.0.0.1:${workerPort}`,
    token: workerEnv.get('LAZYBOY_CONTROL_TOKEN') ?? '',
    bindFence: 1,
  });
  const fence = Number.MAX_SAFE_INTEGER;
  const slot = view!.screen!.slot;
  await client.call(browserRoutes.observe, { slot, fence });
  await client.call(workerRoutes.shellRun, { slot, fence, command: 'sleep 600 & echo started', blockUntilMs: 10_000 });

  await api(apiUrl, owner, 'POST', `/api/agents/${agents[0]!.id}/computer/suspend`);
  const tempDirs = readdirSync(os.tmpdir())
    .filter((name) => name.startsWith(`lazyboy-computer-${computerId}-`))
    .map((name) => path.join(os.tmpdir(), name))
    .sort();
  return { id: computerId, uid, workerPid: worker.pid, workerPort, tempDirs };
}

/** Everything of the computer an outsider can see: its user's processes, and whatever names the data directory. */
function computerProcesses(computer: SuspendedComputer, dataDir: string): ScannedProcess[] {
  return scanProcesses().filter(
    (p) => p.uid === computer.uid || p.pid === computer.workerPid || (p.environ + p.cmdline).includes(`${dataDir}/homes`),
  );
}

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Precondition of both cases: a desktop of two screens, every process of it frozen (state T). */
function expectSuspended(computer: SuspendedComputer, dataDir: string): void {
  const desktop = scanProcesses().filter((p) => p.uid === computer.uid);
  expect(desktop.length).toBeGreaterThan(10);
  expect(desktop.filter((p) => p.state !== 'T').map((p) => `${p.pid} ${p.state} ${p.cmdline.slice(0, 80)}`)).toEqual([]);
  expect(computerProcesses(computer, dataDir).some((p) => p.pid === computer.workerPid)).toBe(true);
  // The runtime directory and the shell logs beside it.
  expect(computer.tempDirs.map((dir) => dir.endsWith('-shell'))).toEqual([false, true]);
}

/** Nothing of the computer is left: no process, no port, no temporary folder. */
async function expectGone(computer: SuspendedComputer, dataDir: string): Promise<void> {
  expect(computerProcesses(computer, dataDir).map((p) => `${p.pid} ${p.state} uid ${p.uid} ${p.cmdline.slice(0, 100)}`)).toEqual(
    [],
  );
  expect(await portAccepts(computer.workerPort)).toBe(false);
  expect(readdirSync(os.tmpdir()).filter((name) => name.startsWith(`lazyboy-computer-${computer.id}-`))).toEqual([]);
}

/** After a failure: whatever is left is ended, so that it does not outlive the suite. */
function cleanUp(env: NodeJS.ProcessEnv, dataDir: string, up: RunningUp | undefined, computer: SuspendedComputer | undefined) {
  const kill = (pid: number) => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  };
  if (up && up.process.exitCode === null && up.process.signalCode === null) kill(-up.process.pid!);
  runCli(['down'], env);
  for (const p of computer ? computerProcesses(computer, dataDir) : []) kill(p.pid);
  for (const name of computer ? readdirSync(os.tmpdir()) : []) {
    if (name.startsWith(`lazyboy-computer-${computer!.id}-`))
      rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
  }
  rmSync(dataDir, { recursive: true, force: true });
}

// The desktops run as the computers' own users (and in network islands) only when the stack runs as root, as in CI.
(asRoot ? describe : describe.skip)('lazyboy up with a suspended computer', () => {
  const displayBase = String(20_000 + Number(process.env.JEST_WORKER_ID ?? 0) * 200);

  it('after Ctrl-C no desktop process remains, nor its folders, and `down` finds nothing', async () => {
    const { dataDir, env } = stackEnv({ LAZYBOY_DISPLAY_BASE_FROM: displayBase, TEAM_SCREEN_LIMIT: '2' });
    let up: RunningUp | undefined;
    let computer: SuspendedComputer | undefined;
    try {
      up = await startUp(env);
      computer = await bootAndSuspend(up);
      expectSuspended(computer, dataDir);

      process.kill(-up.process.pid!, 'SIGINT');
      expect(await up.exited).toBe(0);
      expect(up.output()).toContain('LazyBoy stopped; data kept.');
      await expectGone(computer, dataDir);

      const down = runCli(['down'], env);
      expect(down).toEqual({ code: 0, out: 'LazyBoy is not running.\n' });
    } finally {
      cleanUp(env, dataDir, up, computer);
    }
  }, 300_000);

  it('when `up` and the API were killed, `down` ends the suspended desktop and the worker they left', async () => {
    const { dataDir, env } = stackEnv({ LAZYBOY_DISPLAY_BASE_FROM: displayBase, TEAM_SCREEN_LIMIT: '2' });
    let up: RunningUp | undefined;
    let computer: SuspendedComputer | undefined;
    try {
      up = await startUp(env);
      computer = await bootAndSuspend(up);
      expectSuspended(computer, dataDir);

      // An interrupted `up`: nothing got to stop the computer.
      const apiPid = up.state().components.find((c) => c.name === 'api')!.pid;
      process.kill(up.process.pid!, 'SIGKILL');
      process.kill(-apiPid, 'SIGKILL');
      await up.exited;
      expectSuspended(computer, dataDir);
      expect(await portAccepts(computer.workerPort)).toBe(true);

      const down = runCli(['down'], env);
      expect(down.code).toBe(0);
      await expectGone(computer, dataDir);
      expect(down.out).toContain('computer worker(s) left over');
      // Nothing of the stack either.
      expect(scanProcesses().filter((p) => p.cmdline.includes(dataDir))).toEqual([]);
      expect(runCli(['down'], env)).toEqual({ code: 0, out: 'LazyBoy is not running.\n' });
    } finally {
      cleanUp(env, dataDir, up, computer);
    }
  }, 300_000);
});
