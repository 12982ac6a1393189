import { testDisplayBase } from '../testing/display-base.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ScreenManager } from '../display/screen-manager.js';
import { portAccepts } from '../process/net.js';
import { pollUntil } from '../process/wait.js';
import { scanProcesses } from '../testing/process-scan.js';
import { makeWalkableDir, tempDirPath } from '../testing/temp-dirs.js';
import { SandboxUnavailableError, UnknownCommandError } from './errors.js';
import { HomeFiles } from './home-files.js';
import { SandboxedShell, type ShellCommand } from './sandboxed-shell.js';
import { NativeActor } from '../native/actor.js';
import { NativeObserver } from '../native/observer.js';
import { sleep } from '../../../../test/support/index.js';

/** The host's pids of `sleep <duration>` processes (inside the sandbox pids are namespaced). */
const sleeping = (duration: string): number[] =>
  scanProcesses()
    .filter((p) => p.cmdline.trim() === `sleep ${duration}`)
    .map((p) => p.pid);

async function outputUntil(shell: SandboxedShell, command: ShellCommand, text: string): Promise<string> {
  let seen = '';
  for (let i = 0; i < 400 && !seen.includes(text); i += 1) {
    seen += shell.newOutput(command.id).text;
    if (!seen.includes(text)) await sleep(25);
  }
  return seen;
}

describe('SandboxedShell (bubblewrap, as the computer’s user, on a real display)', () => {
  // Homes outside /tmp, as in production (the data directory): the sandbox's own /tmp would hide them anyway.
  const root = tempDirPath('lazyboy-workspace-').replace(/^\/tmp\//, '/var/tmp/');
  const homeDir = path.join(root, 'homes', 'a');
  const otherHome = path.join(root, 'homes', 'b');
  const logDir = path.join(root, 'shell-logs');
  const runtimeDir = tempDirPath('lazyboy-workspace-run-');
  const manager = new ScreenManager({
    computerId: 'workspace-spec',
    homeDir,
    runtimeDir,
    displayBase: testDisplayBase(1, 300),
    screenLimit: 1,
    stopGraceMs: 2_000,
    log: () => undefined,
  });
  let shell: SandboxedShell;
  let files: HomeFiles;
  let uid = 0;

  beforeAll(async () => {
    makeWalkableDir(root);
    makeWalkableDir(path.dirname(homeDir));
    mkdirSync(otherHome, { mode: 0o755 });
    await manager.ensureScreen(0);
    const user = manager.user;
    if (!user) throw new Error('the manager has no user after booting');
    uid = user.uid;
    shell = new SandboxedShell({ user, homeDir, logDir, displayEnv: () => manager.clientEnv(0), killGraceMs: 1_000 });
    files = new HomeFiles({ homeDir, owner: user.dedicated ? { uid: user.uid, gid: user.gid } : undefined });
    await shell.probe();
  });

  afterAll(async () => {
    await shell?.stopAll();
    await manager.dispose();
    rmSync(root, { recursive: true, force: true });
    rmSync(runtimeDir, { recursive: true, force: true });
  });

  it('runs bash as the computer’s user, in its home, with the output in a log outside it', async () => {
    const result = await shell.run('echo hello; id -u; pwd; echo oops >&2; exit 3');

    expect(result).toMatchObject({ exitCode: 3, signal: null, timedOut: false, aborted: false });
    expect(result.outputTail).toBe(`hello\n${uid}\n${homeDir}\noops\n`);
    expect(result.bytes).toBe(Buffer.byteLength(result.outputTail));
    expect(path.dirname(result.logFile)).toBe(logDir);
    expect((await shell.run('pwd', { cwd: 'sub/..' })).outputTail).toBe(`${homeDir}\n`);
  });

  it('writes in the home, visible to HomeFiles, but nowhere else', async () => {
    const inside = await shell.run('mkdir -p notes && echo from-shell > notes/a.txt');
    expect(inside.exitCode).toBe(0);
    expect(files.read('notes/a.txt').content).toBe('from-shell\n');

    for (const target of ['/etc/lazyboy-x', '/usr/lazyboy-x', path.join(root, 'x'), path.join(logDir, 'x')]) {
      const outside = await shell.run(`echo x > ${target}`);
      expect([target, outside.exitCode]).toEqual([target, 1]);
      expect(existsSync(target)).toBe(false);
    }
    // Its /tmp is its own and writable: only the display's socket and cookie are bound into it.
    const display = manager.displayForSlot(0).slice(1);
    const tmp = await shell.run('touch /tmp/t && ls -A /tmp /tmp/.X11-unix');
    expect(tmp.outputTail).toBe(`/tmp:\n.X11-unix\n${path.basename(runtimeDir)}\nt\n\n/tmp/.X11-unix:\nX${display}\n`);
  });

  it('cannot see other computers’ homes, the runtime directory or the command logs', async () => {
    const result = await shell.run(
      `ls -A ${path.dirname(homeDir)}; ls ${otherHome} || echo no-other; ls ${runtimeDir}/logs || echo no-logs; ls ${logDir} || echo no-shell-logs`,
    );

    expect(result.outputTail).toMatch(/^a\n/);
    expect(result.outputTail).toContain('no-other');
    expect(result.outputTail).toContain('no-logs');
    expect(result.outputTail).toContain('no-shell-logs');
  });

  it('cannot reach a TCP server on the host’s loopback that the host reaches', async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const result = await shell.run(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`);

      expect(result.exitCode).not.toBe(0);
      expect(result.outputTail).not.toContain('connected');
      expect(connections).toBe(0);
      expect(await portAccepts(port)).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('kills the command and everything it started at the deadline', async () => {
    const marker = `${Math.floor(Math.random() * 1e6) + 1000}.5`;
    const command = shell.start(`sleep ${marker} & sleep ${marker} & echo up; wait`, { timeoutMs: 2_000 });
    await outputUntil(shell, command, 'up');
    // `echo` may run before both background children have become `sleep`: wait until they have.
    expect(await pollUntil(() => sleeping(marker).length === 2, 1_500)).toBe(true);

    const result = await command.result;

    expect(result.timedOut).toBe(true);
    expect(shell.newOutput(command.id)).toMatchObject({ running: false, timedOut: true });
    expect(await pollUntil(() => sleeping(marker).length === 0, 5_000)).toBe(true);
  });

  it('kills the command when its signal aborts', async () => {
    const marker = `${Math.floor(Math.random() * 1e6) + 1000}.25`;
    const abort = new AbortController();
    const command = shell.start(`sleep ${marker} & echo up; wait`, { signal: abort.signal, timeoutMs: 60_000 });
    await outputUntil(shell, command, 'up');

    abort.abort();
    const result = await command.result;

    expect([result.aborted, result.timedOut]).toEqual([true, false]);
    expect(await pollUntil(() => sleeping(marker).length === 0, 5_000)).toBe(true);
  });

  it('hands out a running command’s output as it comes', async () => {
    const command = shell.start('echo one; while [ ! -e go ]; do sleep 0.05; done; echo two; exit 3');

    expect(await outputUntil(shell, command, 'one')).toBe('one\n');
    const running = shell.newOutput(command.id);
    expect(running).toMatchObject({ text: '', running: true });
    expect(running).not.toHaveProperty('exitCode');
    files.write('go', '');
    await command.result;

    expect(shell.newOutput(command.id)).toMatchObject({ text: 'two\n', running: false, bytes: 8, exitCode: 3, timedOut: false });
    expect(() => shell.newOutput(9_999)).toThrow(UnknownCommandError);
  });

  it('shows GUI programs on the computer’s display', async () => {
    const geometry = await shell.run('xdotool getdisplaygeometry');
    expect(geometry.outputTail).toBe('1280 800\n');

    const title = `ws-probe-${process.pid}`;
    const zenity = await shell.run(
      `zenity --info --title=${title} --text=hello 2>/dev/null & ` +
        `for i in $(seq 100); do xdotool search --name ${title} >/dev/null && echo shown && exit 0; sleep 0.1; done; exit 1`,
    );
    expect(zenity).toMatchObject({ exitCode: 0, outputTail: 'shown\n' });
  });

  it('fails closed when bubblewrap cannot build the sandbox', async () => {
    const user = manager.user;
    if (!user) throw new Error('no user');
    const broken = new SandboxedShell({ user, homeDir, logDir: path.join(root, 'broken-logs'), bwrapPath: '/bin/false' });
    const missing = new SandboxedShell({
      user,
      homeDir,
      logDir: path.join(root, 'broken-logs'),
      bwrapPath: '/nonexistent/bwrap',
    });

    await expect(broken.run('echo hi')).rejects.toThrow(SandboxUnavailableError);
    await expect(missing.probe()).rejects.toThrow(SandboxUnavailableError);
  });

  it("answers a new shell's first command with its own output, not a log an earlier shell left", async () => {
    const user = manager.user;
    if (!user) throw new Error('no user');
    const leftOver = path.join(root, 'left-over-logs');
    mkdirSync(leftOver, { recursive: true, mode: 0o700 });
    // What a worker killed before its cleanup leaves: its commands' logs, numbered from 1 too.
    writeFileSync(path.join(leftOver, 'command-0001.log'), 'output of the killed worker\n');
    writeFileSync(path.join(leftOver, 'command-0002.log'), 'more of it\n');
    writeFileSync(path.join(leftOver, 'notes.txt'), 'not a command log\n');
    const fresh = new SandboxedShell({ user, homeDir, logDir: leftOver });

    const first = await fresh.run('echo first of the new shell');
    expect(first.outputTail).toBe('first of the new shell\n');
    expect(readFileSync(first.logFile, 'utf8')).toBe('first of the new shell\n');
    expect(readdirSync(leftOver).sort()).toEqual(['command-0001.log', 'notes.txt']);
  });

  it('runs commands for a home directly under /tmp', async () => {
    const user = manager.user;
    if (!user) throw new Error('no user');
    const tmpHome = tempDirPath('lazyboy-tmp-home-');
    makeWalkableDir(tmpHome);
    if (user.dedicated) chownSync(tmpHome, user.uid, user.gid);
    try {
      // The worker hides the homes' parent: here /tmp, which the sandbox's own /tmp covers already; of the
      // host's /tmp only the home is there.
      const underTmp = new SandboxedShell({
        user,
        homeDir: tmpHome,
        logDir: path.join(root, 'tmp-home-logs'),
        hiddenDirs: ['/tmp'],
      });
      const result = await underTmp.run('pwd; echo kept > note.txt; cat note.txt; ls -A /tmp');
      expect(result).toMatchObject({ exitCode: 0, outputTail: `${tmpHome}\nkept\n${path.basename(tmpHome)}\n` });
      expect(readFileSync(path.join(tmpHome, 'note.txt'), 'utf8')).toBe('kept\n');
    } finally {
      rmSync(tmpHome, { recursive: true, force: true });
    }
  });

  it('lets a GUI program started in the sandbox join the accessibility tree, so it is operated by element number', async () => {
    const observer = new NativeObserver(manager);
    const actor = new NativeActor(manager, observer);
    const command = shell.start(`zenity --question --title 'Sandboxed question' --text 'Keep the draft?'; echo "answered $?"`, {
      timeoutMs: 60_000,
    });
    let yes: { id: number } | undefined;
    let generation = 0;
    for (let i = 0; i < 60 && !yes; i++) {
      const observation = await observer.observe(0);
      generation = observation.generation;
      yes = observation.elements.find((e) => e.role === 'push button' && e.name === 'Yes');
      if (!yes) await sleep(250);
    }
    expect(yes).toBeDefined();
    const acted = await actor.act(0, { kind: 'click', element: yes!.id, generation });
    expect(acted.via).toBe('atspi');
    const result = await command.result;
    expect(result.outputTail).toContain('answered 0');
  }, 60_000);
});

describe('SandboxedShell in a container (the pod is the boundary)', () => {
  const root = tempDirPath('lazyboy-contained-').replace(/^\/tmp\//, '/var/tmp/');
  const homeDir = path.join(root, 'home');
  const logDir = path.join(root, 'shell-logs');
  const user = { name: 'lazyboy', uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, dedicated: false };
  const shell = new SandboxedShell({ user, homeDir, logDir, boundary: 'container', killGraceMs: 500 });

  beforeAll(() => {
    mkdirSync(homeDir, { recursive: true });
  });
  afterAll(async () => {
    await shell.stopAll();
    rmSync(root, { recursive: true, force: true });
  });

  it('runs bash directly in the home, with none of the worker’s environment', async () => {
    process.env['LAZYBOY_PLANTED_SECRET'] = 'planted-secret-4711';
    try {
      const result = await shell.run('pwd; env; exit 4');
      expect(result.exitCode).toBe(4);
      expect(result.outputTail.split('\n')[0]).toBe(homeDir);
      expect(result.outputTail).toContain(`HOME=${homeDir}`);
      expect(result.outputTail).not.toContain('planted-secret-4711');
      expect((await shell.run('pwd', { cwd: 'sub/..' })).outputTail).toBe(`${homeDir}\n`);
    } finally {
      delete process.env['LAZYBOY_PLANTED_SECRET'];
    }
  });

  it('kills the command and what it started in its group at the deadline', async () => {
    const marker = `${Math.floor(Math.random() * 1e6) + 1000}.75`;
    const command = shell.start(`sleep ${marker} & echo up; wait`, { timeoutMs: 1_000 });
    await outputUntil(shell, command, 'up');
    expect(await pollUntil(() => sleeping(marker).length === 1, 1_500)).toBe(true);
    expect((await command.result).timedOut).toBe(true);
    expect(await pollUntil(() => sleeping(marker).length === 0, 5_000)).toBe(true);
  });
});
