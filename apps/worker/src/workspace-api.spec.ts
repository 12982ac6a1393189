import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  FilesReadResponse,
  NativeActResponse,
  NativeObserveResponse,
  ShellOutputResponse,
  ShellRunResponse,
  WaitResponse,
  WorkerErrorBody,
} from '@lazyboy/contracts';
import { WorkerFixture, type Answer } from './testing/worker-fixture.js';
import { sleep } from '../../../test/support/index.js';

type Done = Extract<ShellRunResponse, { done: true }>;

describe('worker workspace API (sandboxed shell, home files, native windows, waits)', () => {
  const worker = new WorkerFixture('workspace-spec', 1);
  const post = <T>(route: string, body: Record<string, unknown>) => worker.post<T>(route, { slot: 0, ...body });
  const fail = (route: string, body: Record<string, unknown>) => post<WorkerErrorBody>(route, body);

  beforeAll(async () => {
    await worker.start();
    const ensured = await worker.post('/screens/ensure', { slot: 0, profileKey: 'agent-a', fence: 1 });
    expect(ensured.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await worker.stop();
  }, 30_000);

  it('runs a command in the sandbox as the computer’s user', async () => {
    const ran = (await post<Done>('/shell/run', { fence: 1, command: 'echo hello from $(id -un)' })) as Answer<Done>;
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ done: true, exitCode: 0, timedOut: false });
    expect(ran.body.outputTail.trim()).toBe(`hello from ${worker.screens.user?.name ?? '?'}`);
  }, 30_000);

  it('answers done:false for a long command and serves its output as it comes', async () => {
    const started = await post<ShellRunResponse>('/shell/run', {
      fence: 1,
      command: 'echo first; sleep 1; echo second',
      blockUntilMs: 100,
    });
    expect(started.status).toBe(200);
    expect(started.body.done).toBe(false);
    const { commandId } = started.body;
    await sleep(1_800);
    const output = await post<ShellOutputResponse>('/shell/output', { fence: 1, commandId });
    expect(output.status).toBe(200);
    expect(output.body.text).toContain('second');
    expect(output.body.running).toBe(false);
    const unknown = await fail('/shell/output', { fence: 1, commandId: 9_999 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('UNKNOWN_COMMAND');
  }, 30_000);

  it('refuses a stale fence before running anything', async () => {
    expect((await post('/shell/run', { fence: 5, command: 'true' })).status).toBe(200);
    const stale = await fail('/shell/run', { fence: 4, command: 'touch stale-marker' });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('STALE_FENCE');
    await sleep(300);
    expect(existsSync(path.join(worker.screens.homeDir, 'stale-marker'))).toBe(false);
    const read = await fail('/files/read', { fence: 5, path: 'stale-marker' });
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe('FILE_NOT_FOUND');
  }, 30_000);

  it('writes and reads home files and refuses paths outside the home', async () => {
    const written = await post('/files/write', { fence: 5, path: 'notes/todo.txt', content: 'buy milk\n' });
    expect(written.status).toBe(200);
    expect(written.body).toEqual({ path: 'notes/todo.txt', bytes: 9 });
    const read = await post<FilesReadResponse>('/files/read', { fence: 5, path: 'notes/todo.txt' });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ content: 'buy milk\n', size: 9, encoding: 'utf8' });
    const listed = await post<{ entries: { name: string }[] }>('/files/list', { fence: 5, path: 'notes' });
    expect(listed.body.entries.map((e) => e.name)).toEqual(['todo.txt']);
    // The shell sees the same file, as its own user.
    const cat = (await post<Done>('/shell/run', { fence: 5, command: 'cat notes/todo.txt' })) as Answer<Done>;
    expect(cat.body.outputTail).toBe('buy milk\n');

    for (const route of ['/files/read', '/files/write']) {
      const body = route === '/files/write' ? { content: 'x' } : {};
      const outside = await fail(route, { fence: 5, path: '../../etc/passwd', ...body });
      expect(outside.status).toBe(403);
      expect(outside.body.error.code).toBe('PATH_OUTSIDE_HOME');
    }
  }, 30_000);

  it('waits the time asked when nothing is to change', async () => {
    const started = Date.now();
    const waited = await post<WaitResponse>('/wait', { fence: 5, seconds: 0.5 });
    expect(waited.status).toBe(200);
    expect(waited.body.changed).toBe(false);
    expect(waited.body.waitedMs).toBeGreaterThanOrEqual(490);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await fail('/wait', { fence: 5, seconds: 61 })).status).toBe(400);
  }, 30_000);

  // The sandbox has no accessibility bus (its own network namespace; NO_AT_BRIDGE), so a dialog the shell
  // starts shows as a window without numbered elements: it is pressed with a key sent to the active window.
  it('sees a zenity dialog the shell started and answers it through the native actor', async () => {
    const started = await post<ShellRunResponse>('/shell/run', {
      fence: 5,
      command: 'zenity --question --title="Lazyboy question" --text="Proceed?"; echo "answered $?"',
      blockUntilMs: 200,
      timeoutMs: 40_000,
    });
    expect(started.body.done).toBe(false);
    let observed: Answer<NativeObserveResponse> | undefined;
    for (let attempt = 0; attempt < 40; attempt += 1) {
      observed = await post<NativeObserveResponse>('/native/observe', { fence: 5 });
      if (observed.status === 200 && /dialog "Lazyboy question" \[Zenity\].*active/.test(observed.body.observation)) break;
      await sleep(250);
    }
    expect(observed?.status).toBe(200);
    expect(observed?.body.observation).toMatch(/dialog "Lazyboy question" \[Zenity\].*active/);
    expect(observed?.body.observation).toContain('BROWSER');

    const missing = await fail('/native/act', { fence: 5, action: { kind: 'click', element: 999 } });
    expect([409, 422]).toContain(missing.status);
    const acted = await post<NativeActResponse>('/native/act', { fence: 5, action: { kind: 'key', keys: 'Return' } });
    expect(acted.status).toBe(200);
    expect(acted.body.via).toBe('xdotool');
    let output = '';
    for (let attempt = 0; attempt < 40 && !output.includes('answered'); attempt += 1) {
      await sleep(250);
      output += (await post<ShellOutputResponse>('/shell/output', { fence: 5, commandId: started.body.commandId })).body.text;
    }
    expect(output).toMatch(/answered [01]/);
  }, 45_000);

  it('refuses changes while a person holds the slot but still lets files be read', async () => {
    expect((await worker.post('/screens/control', { slot: 0, holder: 'user', fence: 1 })).status).toBe(200);
    const held = await fail('/shell/run', { fence: 5, command: 'touch held-marker' });
    expect(held.status).toBe(423);
    expect(held.body.error.code).toBe('CONTROL_HELD_BY_USER');
    expect((await fail('/files/write', { fence: 5, path: 'held.txt', content: 'x' })).status).toBe(423);
    const read = await post<FilesReadResponse>('/files/read', { fence: 5, path: 'notes/todo.txt' });
    expect(read.status).toBe(200);
    expect(read.body.content).toBe('buy milk\n');
    expect(existsSync(path.join(worker.screens.homeDir, 'held-marker'))).toBe(false);
    expect((await worker.post('/screens/control', { slot: 0, holder: 'agent', fence: 2 })).status).toBe(200);
  }, 30_000);
});
