import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { BotComputerView, ComputerState, ComputerView, ScreenView } from '@lazyboy/contracts';
import { ApiError } from './api.js';
import { CONTROL_RENEW_MS, ComputerSession, type ComputerApi } from './computer-session.js';
import type { PanelToVnc } from './vnc-messages.js';

const BOT = 'bot-1';
const ME = 'user-me';

/** A pretend API and view proxy: one computer with the bot's screen, and a log of what was asked of it. */
function fakeServer(initial: ComputerState) {
  const server = {
    state: initial,
    holder: 'agent' as 'agent' | 'user',
    holderId: null as string | null,
    calls: [] as string[],
    tickets: 0,
  };
  const screen = (): ScreenView => ({
    id: 'screen-1',
    slot: 0,
    display: 1,
    botId: BOT,
    controlHolder: server.holder,
    controlUserId: server.holderId,
    controlExpiresAt: null,
    executionRunId: null,
  });
  const computer = (): ComputerView => ({
    id: 'computer-1',
    workspaceId: 'ws-1',
    kind: 'private',
    botId: BOT,
    state: server.state,
    lastViewedAt: null,
    bootedAt: null,
    suspendedAt: null,
    stoppedAt: null,
    memoryBytes: null,
    errorMessage: null,
    screens: [screen()],
  });
  const view = (): BotComputerView => ({ computer: computer(), screen: screen() });
  const api: ComputerApi = {
    get: async () => {
      server.calls.push('get');
      return view();
    },
    boot: async () => {
      server.calls.push('boot');
      server.state = 'running';
      return view();
    },
    wake: async () => {
      server.calls.push('wake');
      server.state = 'running';
      return view();
    },
    heartbeat: async () => {
      server.calls.push('heartbeat');
      return view();
    },
    viewerTicket: async (_botId, mode) => {
      server.calls.push(`ticket:${mode}`);
      if (mode === 'control' && !(server.holder === 'user' && server.holderId === ME)) {
        throw new ApiError('FORBIDDEN', 'take control of the screen first', 403);
      }
      server.tickets += 1;
      const ticket = `ticket-${server.tickets}`;
      return { ticket, mode, expiresAt: '2030-01-01T00:00:00.000Z', path: `/view/${ticket}` };
    },
    takeover: async () => {
      server.calls.push('takeover');
      server.holder = 'user';
      server.holderId = ME;
      return { screen: screen(), run: null };
    },
    release: async () => {
      server.calls.push('release');
      server.holder = 'agent';
      server.holderId = null;
      return { screen: screen(), run: null };
    },
    control: async (connectionId, ticket) => {
      server.calls.push(`control:${connectionId}:${ticket}`);
    },
    watch: async (connectionId) => {
      server.calls.push(`watch:${connectionId}`);
    },
    type: async (_botId, text) => {
      server.calls.push(`type:${text}`);
      return { via: 'browser' };
    },
  };
  return { server, api, computer, view };
}

function setup(initial: ComputerState) {
  const fake = fakeServer(initial);
  const sent: PanelToVnc[] = [];
  const firstFrames: number[] = [];
  let connections = 0;
  const session = new ComputerSession({
    botId: BOT,
    userId: ME,
    api: fake.api,
    socketUrl: (path, id) => `ws://web.test${path}?c=${id}`,
    newConnectionId: () => `connection-${++connections}`,
    onFirstFrame: () => firstFrames.push(Date.now()),
  });
  const lastConnect = () => [...sent].reverse().find((m) => m.type === 'connect');
  return { ...fake, session, sent, firstFrames, lastConnect };
}

/** Lets the fake API's promises settle (and any timers due by then fire). */
const settle = () => jest.advanceTimersByTimeAsync(0);

describe('ComputerSession', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  async function live(initial: ComputerState = 'running') {
    const env = setup(initial);
    env.session.start(true);
    env.session.frameReady((message) => env.sent.push(message));
    await settle();
    env.session.frameMessage({ type: 'connected' });
    env.session.frameMessage({ type: 'frame' });
    return env;
  }

  it('connects a running computer view-only, on a fresh connection id, and reports the first frame once', async () => {
    const env = setup('running');
    env.session.start(true);
    expect(env.session.getSnapshot().stage).toBe('loading');
    await settle();
    // The ticket waits for the iframe.
    expect(env.sent).toEqual([]);
    env.session.frameReady((message) => env.sent.push(message));
    expect(env.lastConnect()).toEqual({ type: 'connect', url: 'ws://web.test/view/ticket-1?c=connection-1' });
    expect(env.session.getSnapshot().stage).toBe('connecting');
    env.session.frameMessage({ type: 'connected' });
    env.session.frameMessage({ type: 'frame' });
    expect(env.session.getSnapshot()).toMatchObject({ stage: 'live', firstFrame: true, control: 'agent', driving: false });
    expect(env.firstFrames).toHaveLength(1);
    expect(env.server.calls).toEqual(expect.arrayContaining(['get', 'ticket:view']));
    expect(env.server.calls).not.toContain('boot');
    env.session.close();
  });

  it('boots a stopped computer, and wakes a suspended one, before connecting', async () => {
    const stopped = setup('stopped');
    stopped.session.frameReady((message) => stopped.sent.push(message));
    stopped.session.start(true);
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped.server.calls.slice(0, 3)).toEqual(['heartbeat', 'get', 'boot']);
    expect(stopped.lastConnect()).toBeDefined();
    stopped.session.close();

    const suspended = setup('suspended');
    suspended.session.frameReady((message) => suspended.sent.push(message));
    suspended.session.start(true);
    await settle();
    expect(suspended.server.calls).toEqual(['heartbeat', 'get', 'wake', 'ticket:view']);
    expect(suspended.lastConnect()).toBeDefined();
    suspended.session.close();
  });

  it('heartbeats every 2 s while visible only', async () => {
    const env = await live();
    const beats = () => env.server.calls.filter((c) => c === 'heartbeat').length;
    const before = beats();
    await jest.advanceTimersByTimeAsync(6_000);
    expect(beats() - before).toBe(3);
    env.session.setVisible(false);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(beats() - before).toBe(3);
    env.session.setVisible(true);
    await settle();
    expect(beats() - before).toBe(4);
    env.session.close();
  });

  it('takes over without reconnecting, renews the control window, and hands back input-first', async () => {
    const env = await live();
    env.server.calls.length = 0;
    await env.session.takeOver();
    expect(env.server.calls).toEqual(['takeover', 'ticket:control', 'control:connection-1:ticket-2']);
    expect(env.sent.at(-1)).toEqual({ type: 'view-only', viewOnly: false });
    expect(env.session.getSnapshot()).toMatchObject({ control: 'me', driving: true, switching: null });
    expect(env.sent.filter((m) => m.type === 'connect')).toHaveLength(1);

    env.server.calls.length = 0;
    await jest.advanceTimersByTimeAsync(CONTROL_RENEW_MS);
    expect(env.server.calls).toEqual(expect.arrayContaining(['ticket:control', 'control:connection-1:ticket-3']));

    expect(env.session.paste('hello')).toBe(true);
    expect(env.sent.at(-1)).toEqual({ type: 'paste', text: 'hello' });
    expect(env.session.openKeyboard()).toBe(true);
    expect(env.sent.at(-1)).toEqual({ type: 'keyboard' });
    // What VNC cannot type, the frame asks the API to: typed, then answered so the frame's typing goes on.
    env.server.calls.length = 0;
    env.session.frameMessage({ type: 'type', id: 7, text: '你好' });
    await jest.advanceTimersByTimeAsync(0);
    expect(env.server.calls).toEqual(['type:你好']);
    expect(env.sent.at(-1)).toEqual({ type: 'typed', id: 7 });

    env.server.calls.length = 0;
    await env.session.handBack();
    expect(env.server.calls).toEqual(['watch:connection-1', 'release']);
    expect(env.sent.at(-1)).toEqual({ type: 'view-only', viewOnly: true });
    expect(env.session.getSnapshot()).toMatchObject({ control: 'agent', driving: false, switching: null });
    expect(env.session.paste('nope')).toBe(false);
    expect(env.session.openKeyboard()).toBe(false);

    // No renewal after the hand back.
    env.server.calls.length = 0;
    await jest.advanceTimersByTimeAsync(CONTROL_RENEW_MS * 2);
    expect(env.server.calls.filter((c) => c.startsWith('control:'))).toEqual([]);
    env.session.close();
  });

  it('stops the input when control is lost elsewhere (expiry, a release from the chat)', async () => {
    const env = await live();
    await env.session.takeOver();
    env.server.holder = 'agent';
    env.server.holderId = null;
    env.server.calls.length = 0;
    env.session.computerUpdated(env.computer());
    expect(env.sent.at(-1)).toEqual({ type: 'view-only', viewOnly: true });
    expect(env.server.calls).toEqual(['watch:connection-1']);
    expect(env.session.getSnapshot()).toMatchObject({ control: 'agent', driving: false });
    env.session.close();
  });

  it('ignores a heartbeat answer that set out before a takeover finished', async () => {
    const env = await live();
    const stale = env.view();
    let answer: (view: BotComputerView) => void = () => undefined;
    env.api.heartbeat = () => new Promise((resolve) => (answer = resolve));
    await jest.advanceTimersByTimeAsync(2_000);
    await env.session.takeOver();
    answer(stale);
    await settle();
    expect(env.session.getSnapshot()).toMatchObject({ control: 'me', driving: true });
    expect(env.server.calls).not.toContain('watch:connection-1');
    env.session.close();
  });

  it('offers nothing while someone else holds control', async () => {
    const env = setup('running');
    env.server.holder = 'user';
    env.server.holderId = 'someone-else';
    env.session.frameReady((message) => env.sent.push(message));
    env.session.start(false);
    await settle();
    expect(env.session.getSnapshot().control).toBe('other');
    await env.session.takeOver();
    expect(env.server.calls).not.toContain('takeover');
    env.session.close();
  });

  it('reconnects with a fresh ticket and connection id after the connection drops', async () => {
    const env = await live();
    env.session.frameMessage({ type: 'disconnected', clean: false });
    expect(env.session.getSnapshot().stage).toBe('connecting');
    await jest.advanceTimersByTimeAsync(499);
    expect(env.sent.filter((m) => m.type === 'connect')).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(env.lastConnect()).toEqual({ type: 'connect', url: 'ws://web.test/view/ticket-2?c=connection-2' });
    env.session.frameMessage({ type: 'connected' });
    env.session.frameMessage({ type: 'frame' });
    expect(env.session.getSnapshot().stage).toBe('live');
    expect(env.firstFrames).toHaveLength(1);
    env.session.close();
  });

  it('regains control on the new connection after a reconnect', async () => {
    const env = await live();
    await env.session.takeOver();
    env.session.frameMessage({ type: 'disconnected', clean: false });
    expect(env.session.getSnapshot().driving).toBe(false);
    await jest.advanceTimersByTimeAsync(500);
    env.server.calls.length = 0;
    env.session.frameMessage({ type: 'connected' });
    await settle();
    expect(env.server.calls).toEqual(['ticket:control', 'control:connection-2:ticket-4']);
    expect(env.session.getSnapshot().driving).toBe(true);
    env.session.close();
  });

  it('shows a computer stopped later as offline, and boots it on request', async () => {
    const env = await live('stopped');
    env.server.state = 'stopped';
    env.session.computerUpdated(env.computer());
    expect(env.sent.at(-1)).toEqual({ type: 'disconnect' });
    expect(env.session.getSnapshot().stage).toBe('offline');
    env.server.calls.length = 0;
    env.session.startComputer();
    expect(env.session.getSnapshot().stage).toBe('booting');
    await settle();
    expect(env.server.calls).toEqual(['boot', 'ticket:view']);
    expect(env.lastConnect()?.type).toBe('connect');
    env.session.close();
  });

  it('lets a computer that fell asleep in a hidden tab sleep until the tab is seen again', async () => {
    const env = await live();
    env.session.setVisible(false);
    env.server.state = 'suspended';
    env.server.calls.length = 0;
    env.session.computerUpdated(env.computer());
    env.session.frameMessage({ type: 'disconnected', clean: true });
    await jest.advanceTimersByTimeAsync(30_000);
    expect(env.server.calls).not.toContain('wake');
    expect(env.server.calls).not.toContain('ticket:view');
    env.session.setVisible(true);
    await settle();
    expect(env.server.calls).toEqual(expect.arrayContaining(['wake', 'ticket:view']));
    expect(env.lastConnect()?.url).toContain('?c=connection-2');
    env.session.close();
  });

  it('takes over once the computer is known when the agent asked for it', async () => {
    const env = setup('running');
    env.session.frameReady((message) => env.sent.push(message));
    env.session.requestTakeover();
    env.session.start(false);
    await settle();
    expect(env.server.calls).toContain('takeover');
    env.session.frameMessage({ type: 'connected' });
    await settle();
    expect(env.session.getSnapshot()).toMatchObject({ control: 'me', driving: true });
    env.session.close();
  });

  it('shows a failed boot as an error, with no retry loop', async () => {
    const env = setup('stopped');
    env.api.boot = async () => {
      env.server.calls.push('boot');
      throw new ApiError('INTERNAL', 'no worker', 500);
    };
    env.session.start(true);
    await settle();
    expect(env.session.getSnapshot().stage).toBe('error');
    await jest.advanceTimersByTimeAsync(60_000);
    expect(env.server.calls.filter((c) => c === 'boot')).toHaveLength(1);
    env.session.close();
  });
});
