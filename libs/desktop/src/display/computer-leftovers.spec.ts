import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { readCmdline } from '../process/proc-table.js';
import { pollUntil } from '../process/wait.js';
import { processState } from '../testing/process-scan.js';
import { makeWalkableDir, tempDirPath } from '../testing/temp-dirs.js';
import { clearComputerLeftovers } from './computer-leftovers.js';
import { computerRuntimeDir, shellLogRoot } from './computer-paths.js';
import { HOME_MARKER } from './desktop-env.js';
import { findComputerProcesses } from './desktop-processes.js';

/** A process that looks like one of a computer's: `sleep`, with the given environment and (Chromium's) title. */
function imitation(env: Record<string, string>, title?: string): ChildProcess {
  const script = title ? `exec -a "${title}" sleep 300` : 'exec sleep 300';
  return spawn('bash', ['-c', script], { env: { PATH: '/usr/bin:/bin', ...env }, detached: true, stdio: 'ignore' });
}

const alive = (child: ChildProcess) => {
  const state = processState(child.pid!);
  return state !== undefined && state !== 'Z';
};

describe("a data directory's computer leftovers", () => {
  const root = tempDirPath('lazyboy-leftovers-');
  const homesDir = path.join(root, 'data', 'homes');
  const homeA = path.join(homesDir, 'team-a');
  const homeB = path.join(homesDir, 'team-b');
  // Another stack's computer: a sibling data directory whose home has the same name.
  const otherHome = path.join(root, 'other', 'homes', 'team-a');
  const tmpDir = path.join(root, 'tmp');
  const children: ChildProcess[] = [];

  const start = (env: Record<string, string>, title?: string) => {
    const child = imitation(env, title);
    children.push(child);
    return child;
  };
  const running = async (child: ChildProcess) => {
    // Until bash has exec'd sleep, the process still shows bash's command line.
    await pollUntil(() => readCmdline(child.pid!)?.[0]?.startsWith('bash') === false, 5_000);
    return child;
  };

  beforeAll(() => {
    makeWalkableDir(root);
    for (const dir of [homeA, homeB, otherHome, tmpDir]) mkdirSync(dir, { recursive: true });
  });
  afterEach(() => {
    for (const child of children.splice(0)) if (alive(child)) process.kill(child.pid!, 'SIGKILL');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('ends every process of the homes, suspended ones too, and only theirs', async () => {
    const desktop = await running(start({ [HOME_MARKER]: homeA }));
    // Chromium hides its environment behind its title; its profile lies in the home.
    const browser = await running(start({}, `chromium --user-data-dir=${homeB}/.lazyboy/chromium/p1 --type=renderer`));
    const stranger = await running(start({ [HOME_MARKER]: otherHome }));
    const strangerBrowser = await running(start({}, `chromium --user-data-dir=${otherHome}/.lazyboy/chromium/p1`));
    const unrelated = await running(start({ HOME: homeA }));
    for (const child of [desktop, browser]) process.kill(child.pid!, 'SIGSTOP');
    await pollUntil(() => processState(desktop.pid!) === 'T' && processState(browser.pid!) === 'T', 5_000);
    expect([processState(desktop.pid!), processState(browser.pid!)]).toEqual(['T', 'T']);

    expect(findComputerProcesses({ homesDir }).sort()).toEqual([desktop.pid!, browser.pid!].sort());
    expect(findComputerProcesses({ home: homeA })).toEqual([desktop.pid!]);

    const cleared = await clearComputerLeftovers({ homesDir }, tmpDir);
    expect(cleared.processes).toBe(2);
    expect({ desktop: alive(desktop), browser: alive(browser) }).toEqual({ desktop: false, browser: false });
    expect({ stranger: alive(stranger), strangerBrowser: alive(strangerBrowser), unrelated: alive(unrelated) }).toEqual({
      stranger: true,
      strangerBrowser: true,
      unrelated: true,
    });
  });

  it('removes the runtime and shell-log folders of the homes, whichever computer made them', async () => {
    const ours = [computerRuntimeDir('c1', homeA, tmpDir), computerRuntimeDir('c2', homeB, tmpDir)];
    const theirs = computerRuntimeDir('c1', otherHome, tmpDir);
    for (const dir of [...ours, theirs]) {
      mkdirSync(path.join(dir, 'screen-0'), { recursive: true });
      mkdirSync(path.join(shellLogRoot(dir), 'slot-0'), { recursive: true });
    }

    const cleared = await clearComputerLeftovers({ homesDir }, tmpDir);
    expect(cleared.folders.sort()).toEqual([...ours, ...ours.map(shellLogRoot)].sort());
    expect([...ours, ...ours.map(shellLogRoot)].filter((dir) => existsSync(dir))).toEqual([]);
    expect([existsSync(theirs), existsSync(shellLogRoot(theirs))]).toEqual([true, true]);
    // One computer's scope leaves its neighbours' folders alone.
    const again = computerRuntimeDir('c2', homeB, tmpDir);
    mkdirSync(again);
    await clearComputerLeftovers({ home: homeA }, tmpDir);
    expect(existsSync(again)).toBe(true);
  });
});
