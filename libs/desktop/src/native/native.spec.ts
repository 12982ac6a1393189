import { testDisplayBase } from '../testing/display-base.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ScreenManager } from '../display/screen-manager.js';
import { makeWalkableDir, tempDirPath } from '../testing/temp-dirs.js';
import { NativeActor } from './actor.js';
import {
  BrowserWindowError,
  CoordinatesOutOfScreenError,
  NativeElementNotFoundError,
  NativeStaleElementError,
} from './errors.js';
import { NativeObserver, renderNativeObservation } from './observer.js';
import { screenSignature, screenshot, thumbnailDifference } from './screenshot.js';
import type { NativeElement, NativeObservation } from './types.js';
import { centre } from './windows.js';
import { sleep } from '../../../../test/support/index.js';

interface Dialog {
  child: ChildProcess;
  exit: Promise<{ code: number | null; stdout: string }>;
}

describe('native windows (real Xvfb, xfwm4, zenity, AT-SPI, xdotool)', () => {
  const root = tempDirPath('lazyboy-native-');
  const manager = new ScreenManager({
    computerId: 'native-spec',
    homeDir: path.join(root, 'home'),
    runtimeDir: path.join(root, 'run'),
    displayBase: testDisplayBase(1, 260),
    screenLimit: 1,
    stopGraceMs: 2_000,
    log: () => undefined,
  });
  const observer = new NativeObserver(manager);
  const actor = new NativeActor(manager, observer);
  const dialogs: Dialog[] = [];
  // Latencies are measured by bench/desktop, not here.
  const timed = <T>(_label: string, work: () => Promise<T>): Promise<T> => work();

  /** zenity as the desktop user on the screen: its exit status and output say what was pressed and typed. */
  function openDialog(args: string[]): Dialog {
    const env = manager.clientEnv(0);
    const user = manager.user;
    const child = spawn('zenity', args, {
      env,
      cwd: env['HOME'],
      uid: user?.dedicated ? user.uid : undefined,
      gid: user?.dedicated ? user.gid : undefined,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exit = new Promise<{ code: number | null; stdout: string }>((resolve) =>
      child.once('close', (code) => resolve({ code, stdout })),
    );
    const dialog = { child, exit };
    dialogs.push(dialog);
    return dialog;
  }

  /** Observes until the dialog's element shows up (zenity takes a moment to map its window and join AT-SPI). */
  async function observeUntil(
    find: (o: NativeObservation) => NativeElement | undefined,
  ): Promise<[NativeObservation, NativeElement]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const observation = await timed('observe', () => observer.observe(0));
      const element = find(observation);
      if (element) return [observation, element];
      if (Date.now() > deadline) throw new Error(`element never appeared:\n${renderNativeObservation(observation)}`);
      await sleep(200);
    }
  }

  const button = (name: string) => (o: NativeObservation) => o.elements.find((e) => e.role === 'push button' && e.name === name);

  beforeAll(async () => {
    makeWalkableDir(root);
    await manager.ensureScreen(0);
  });

  afterAll(async () => {
    for (const dialog of dialogs)
      if (dialog.child.exitCode === null && dialog.child.signalCode === null) dialog.child.kill('SIGKILL');
    await manager.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('numbers a zenity question’s buttons and presses one by its number through AT-SPI', async () => {
    const dialog = openDialog(['--question', '--text', 'Delete the draft?']);
    const [observation, no] = await observeUntil(button('No'));

    const text = renderNativeObservation(observation);
    expect(text).toContain(`[${no.id}] push button "No"`);
    expect(text).toMatch(/label "Delete the draft\?"/);
    expect(text).toMatch(/W\d+ .*"[^"]*Chromium" \[Chromium\].*BROWSER: .*use the browser tool/);
    // Chromium's window is listed, its content is not: every element belongs to the dialog's window.
    const browser = observation.windows.find((w) => w.browser);
    expect(browser).toBeDefined();
    expect(observation.elements.every((e) => e.window !== browser?.id)).toBe(true);
    expect(no.actions).toContain('click');

    const result = await timed('click (AT-SPI)', () =>
      actor.act(0, { kind: 'click', element: no.id, generation: observation.generation }),
    );

    expect(result.via).toBe('atspi');
    expect((await dialog.exit).code).toBe(1);
  });

  it('types into a zenity entry by element number and confirms with OK', async () => {
    const dialog = openDialog(['--entry', '--text', 'Name of the report?']);
    const [, entry] = await observeUntil((o) => o.elements.find((e) => e.role === 'text' && e.states.includes('editable')));

    const typed = await timed('type (AT-SPI)', () =>
      actor.act(0, { kind: 'type', element: entry.id, text: 'Quarterly figures – v2' }),
    );
    const [observation, ok] = await observeUntil(button('OK'));
    expect(observation.elements.find((e) => e.id === entry.id)?.text).toBe('Quarterly figures – v2');
    await timed('click (AT-SPI)', () => actor.act(0, { kind: 'click', element: ok.id }));

    expect(typed.via).toBe('atspi');
    expect(await dialog.exit).toEqual({ code: 0, stdout: 'Quarterly figures – v2\n' });
  });

  it('types with real keystrokes into the focused dialog and presses keys', async () => {
    const dialog = openDialog(['--entry', '--text', 'Folder name?']);
    await observeUntil((o) => o.elements.find((e) => e.role === 'text' && e.states.includes('focused')));

    await timed('type (xdotool)', () => actor.act(0, { kind: 'type', text: '-draft 2' }));
    await timed('key', () => actor.act(0, { kind: 'key', keys: 'Return' }));

    expect(await dialog.exit).toEqual({ code: 0, stdout: '-draft 2\n' });
  });

  it('clicks a dialog button by coordinates with xdotool; the screen returns to what it was', async () => {
    const before = await screenSignature(manager, 0);
    const dialog = openDialog(['--question', '--text', 'Publish now?']);
    const [, yes] = await observeUntil(button('Yes'));
    const shown = await timed('screenshot', () => screenshot(manager, 0));
    expect(shown.png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(thumbnailDifference(shown.thumbnail, before.thumbnail)).toBeGreaterThan(1);

    const point = centre(yes.bounds);
    const result = await timed('click_at (xdotool)', () => actor.act(0, { kind: 'click_at', x: point.x, y: point.y }));

    expect(result.via).toBe('xdotool');
    expect((await dialog.exit).code).toBe(0);
    // The dialog's pixels are gone once the window manager has unmapped it and Chromium has repainted.
    let after = await screenSignature(manager, 0);
    for (let attempt = 0; attempt < 50 && thumbnailDifference(after.thumbnail, before.thumbnail) > 1; attempt += 1) {
      await sleep(100);
      after = await timed('signature', () => screenSignature(manager, 0));
    }
    expect(thumbnailDifference(after.thumbnail, before.thumbnail)).toBeLessThanOrEqual(1);
    expect(after.signature).not.toBe(shown.signature);
  });

  it('refuses element numbers from an older observation and of windows that have gone', async () => {
    const dialog = openDialog(['--question', '--text', 'Keep both?']);
    const [first, yes] = await observeUntil(button('Yes'));
    const second = await observer.observe(0);
    expect(second.generation).toBeGreaterThan(first.generation);

    await expect(actor.act(0, { kind: 'click', element: yes.id, generation: first.generation })).rejects.toBeInstanceOf(
      NativeStaleElementError,
    );
    await expect(actor.act(0, { kind: 'click', element: 999 })).rejects.toBeInstanceOf(NativeElementNotFoundError);
    expect(dialog.child.exitCode).toBeNull();

    dialog.child.kill('SIGTERM');
    await dialog.exit;
    await expect(actor.act(0, { kind: 'click', element: yes.id })).rejects.toBeInstanceOf(NativeStaleElementError);
  });

  it('refuses actions aimed at the browser window and coordinates off the 1280×800 screen', async () => {
    const observation = await observer.observe(0);
    const browser = observation.windows.find((w) => w.browser);
    if (!browser) throw new Error(`no browser window:\n${renderNativeObservation(observation)}`);
    const inside = { x: 400, y: 300 };

    await expect(actor.act(0, { kind: 'click_at', ...inside })).rejects.toBeInstanceOf(BrowserWindowError);
    await expect(actor.act(0, { kind: 'click_at', ...inside })).rejects.toThrow(/use the browser tool/);
    await expect(actor.act(0, { kind: 'drag', from: { x: 100, y: 100 }, to: inside })).rejects.toBeInstanceOf(BrowserWindowError);

    for (const point of [
      { x: 1280, y: 10 },
      { x: 10, y: 800 },
      { x: -1, y: 10 },
      { x: 10.5, y: 10 },
    ]) {
      await expect(actor.act(0, { kind: 'click_at', ...point })).rejects.toBeInstanceOf(CoordinatesOutOfScreenError);
    }
    await expect(actor.act(0, { kind: 'drag', from: { x: 5, y: 5 }, to: { x: 5, y: 900 } })).rejects.toBeInstanceOf(
      CoordinatesOutOfScreenError,
    );
  });
});
