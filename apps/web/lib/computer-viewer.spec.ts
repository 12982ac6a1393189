import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { AgentComputerView, ComputerState, ComputerView, ScreenView } from '@lazyboy/contracts';
import { ApiError } from './api.js';
import { CONTROL_RENEW_MS, ComputerViewer, type ComputerApi } from './computer-viewer.js';
import type { PanelToVnc } from './vnc-messages.js';

const AGENT = 'agent-1';
const ME = 'user-me';

/** A pretend API and view proxy: one computer with the agent's screen, and a log of what was asked of it. */
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
    agentId: AGENT,
    controlHolder: server.holder,
    controlUserId: server.holderId,
    controlExpiresAt: null,
    executionRunId: null,
  });
  const computer = (): ComputerView => ({
    id: 'computer-1',
    workspaceId: 'ws-1',
    kind: 'private',
    agentId: AGENT,
    state: server.state,
    lastViewedAt: null,
    bootedAt: null,
    suspendedAt: null,
    stoppedAt: null,
    memoryBytes: null,
    errorMessage: null,
    screens: [screen()],
  });
  const view = (): AgentComputerView => ({ computer: computer(), screen: screen() });
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
    viewerTicket: async (_agentId, mode) => {
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
    type: async (_agentId, text) => {
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
  const viewer = new ComputerViewer({
    agentId: AGENT,
    userId: ME,
    api: fake.api,
    socketUrl: (path, id) => `ws://web.test${path}?c=${id}`,
    newConnectionId: () => `connection-${++connections}`,
    onFirstFrame: () => firstFrames.push(Date.now()),
  });
  const lastConnect = () => [...sent].reverse().find((m) => m.type === 'connect');
  return { ...fake, viewer, sent, firstFrames, lastConnect };
}

/** Lets the fake API's promises settle (and any timers due by then fire). */
const settle = () => jest.advanceTimersByTimeAsync(0);

describe('ComputerViewer', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  async function live(initial: ComputerState = 'running') {
    const env = setup(initial);
    env.viewer.start(true);
    env.viewer.frameReady((message) => env.sent.push(message));
    await settle();
    env.viewer.frameMessage({ type: 'connected' });
    env.viewer.frameMessage({ type: 'frame' });
    return env;
  }

  it('connects a running computer view-only, on a fresh connection id, and reports the first frame once', async () => {
    const env = setup('running');
    env.viewer.start(true);
    expect(env.viewer.getSnapshot().stage).toBe('loading');
    await settle();
    // The ticket waits for the iframe.
    expect(env.sent).toEqual([]);
    env.viewer.frameReady((message) => env.sent.push(message));
    expect(env.lastConnect()).toEqual({ type: 'connect', url: 'ws://web.test/view/ticket-1?c=connection-1' });
    expect(env.viewer.getSnapshot().stage).toBe('connecting');
    env.viewer.frameMessage({ type: 'connected' });
    env.viewer.frameMessage({ type: 'frame' });
    expect(env.viewer.getSnapshot()).toMatchObject({ stage: 'live', firstFrame: true, control: 'agent', driving: false });
    expect(env.firstFrames).toHaveLength(1);
    expect(env.server.calls).toEqual(expect.arrayContaining(['get', 'ticket:view']));
    expect(env.server.calls).not.toContain('boot');
    env.viewer.close();
  });

  it('boots a stopped computer, and wakes a suspended one, before connecting', async () => {
    const stopped = setup('stopped');
    stopped.viewer.frameReady((message) => stopped.sent.push(message));
    stopped.viewer.start(true);
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped.server.calls.slice(0, 3)).toEqual(['heartbeat', 'get', 'boot']);
    expect(stopped.lastConnect()).toBeDefined();
    stopped.viewer.close();

    const suspended = setup('suspended');
    suspended.viewer.frameReady((message) => suspended.sent.push(message));
    suspended.viewer.start(true);
    await settle();
    expect(suspended.server.calls).toEqual(['heartbeat', 'get', 'wake', 'ticket:view']);
    expect(suspended.lastConnect()).toBeDefined();
    suspended.viewer.close();
  });

  it('heartbeats every 2 s while visible only', async () => {
    const env = await live();
    const beats = () => env.server.calls.filter((c) => c === 'heartbeat').length;
    const before = beats();
    await jest.advanceTimersByTimeAsync(6_000);
    expect(beats() - before).toBe(3);
    env.viewer.setVisible(false);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(beats() - before).toBe(3);
    env.viewer.setVisible(true);
    await settle();
    expect(beats() - before).toBe(4);
    env.viewer.close();
  });

  it('takes over without reconnecting, renews the control window, and hands back input-first', async () => {
    const env = await live();
    env.server.calls.length = 0;
    await env.viewer.takeOver();
    expect(env.server.calls).toEqual(['takeover', 'ticket:control', 'control:connection-1:ticket-2']);
    expect(env.sent.at(-1)).toEqual({ type: 'view-only', viewOnly: false });
    expect(env.viewer.getSnapshot()).toMatchObject({ control: 'me', driving: true, switching: null });
    expect(env.sent.filter((m) => m.type === 'connect')).toHaveLength(1);

    env.server.calls.length = 0;
    await jest.advanceTimersByTimeAsync(CONTROL_RENEW_MS);
    expect(env.server.calls).toEqual(expect.arrayContaining(['ticket:control', 'control:connection-1:ticket-3']));

    expect(env.viewer.paste('hello')).toBe(true);
    expect(env.sent.at(-1)).toEqual({ type: 'paste', text: 'hello' });
    expect(env.viewer.openKeyboard()).toBe(true);
    expect(env.sent.at(-1)).toEqual({ type: 'keyboard' });
    // What VNC cannot type, the frame asks the API to: typed, then answered so the frame's typing goes on.
    env.server.calls.length = 0;
    env.viewer.frameMessage({ type: 'type', id: 7, text: '你好' });
    await jest.advanceTimersByTimeAsync(0);
    expect(env.server.calls).toEqual(['type:你好']);
    expect(env.sent.at(-1)).toEqual({ type: 'typed', id: 7 });

    env.server.calls.length = 0;
    await env.viewer.handBack();
    expect(env.server.calls).toEqual(['watch:connection-1', 'release']);
    expect(env.sent.at(-1)).toEqual({ type: 'view-only', viewOnly: true });
    expect(env.viewer.getSnapshot()).toMatchObject({ control: 'agent', driving: false, switching: null });
    expect(env.viewer.paste('nope')).toBe(false);
    expect(env.viewer.openKeyboard()).toBe(false);

    // No renewal after the hand back.
    env.server.calls.length = 0;
    await jest.advanceTimersByTimeAsync(CONTROL_RENEW_MS * 2);
    expect(env.server.calls.filter((c) => c.startsWith('control:'))).toEqual([]);
    env.viewer.close();
  });

  it('stops the input when control is lost elsewhere (expiry, a release from the chat)', async () => {
    const env = await live();
    await env.viewer.takeOver();
    env.server.holder = 'agent';
    env.server.holderId = null;
    env.server.calls.length = 0;
    env.viewer.computerUpdated(env.computer());
    expect(env.sent.at(-1)).toEqual({ type: 'view-only', viewOnly: true });
    expect(env.server.calls).toEqual(['watch:connection-1']);
    expect(env.viewer.getSnapshot()).toMatchObject({ control: 'agent', driving: false });
    env.viewer.close();
  });

  it('ignores a heartbeat answer that set out before a takeover finished', async () => {
    const env = await live();
    const stale = env.view();
    let answer: (view: AgentComputerView) => void = () => undefined;
    env.api.heartbeat = () => new Promise((resolve) => (answer = resolve));
    await jest.advanceTimersByTimeAsync(2_000);
    await env.viewer.takeOver();
    answer(stale);
    await settle();
    expect(env.viewer.getSnapshot()).toMatchObject({ control: 'me', driving: true });
    expect(env.server.calls).not.toContain('watch:connection-1');
    env.viewer.close();
  });

  it('offers nothing while someone else holds control', async () => {
    const env = setup('running');
    env.server.holder = 'user';
    env.server.holderId = 'someone-else';
    env.viewer.frameReady((message) => env.sent.push(message));
    env.viewer.start(false);
    await settle();
    expect(env.viewer.getSnapshot().control).toBe('other');
    await env.viewer.takeOver();
    expect(env.server.calls).not.toContain('takeover');
    env.viewer.close();
  });

  it('reconnects with a fresh ticket and connection id after the connection drops', async () => {
    const env = await live();
    env.viewer.frameMessage({ type: 'disconnected', clean: false });
    expect(env.viewer.getSnapshot().stage).toBe('connecting');
    await jest.advanceTimersByTimeAsync(499);
    expect(env.sent.filter((m) => m.type === 'connect')).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(env.lastConnect()).toEqual({ type: 'connect', url: 'ws://web.test/view/ticket-2?c=connection-2' });
    env.viewer.frameMessage({ type: 'connected' });
    env.viewer.frameMessage({ type: 'frame' });
    expect(env.viewer.getSnapshot().stage).toBe('live');
    expect(env.firstFrames).toHaveLength(1);
    env.viewer.close();
  });

  it('regains control on the new connection after a reconnect', async () => {
    const env = await live();
    await env.viewer.takeOver();
    env.viewer.frameMessage({ type: 'disconnected', clean: false });
    expect(env.viewer.getSnapshot().driving).toBe(false);
    await jest.advanceTimersByTimeAsync(500);
    env.server.calls.length = 0;
    env.viewer.frameMessage({ type: 'connected' });
    await settle();
    expect(env.server.calls).toEqual(['ticket:control', 'control:connection-2:ticket-4']);
    expect(env.viewer.getSnapshot().driving).toBe(true);
    env.viewer.close();
  });

  it('shows a computer stopped later as offline, and boots it on request', async () => {
    const env = await live('stopped');
    env.server.state = 'stopped';
    env.viewer.computerUpdated(env.computer());
    expect(env.sent.at(-1)).toEqual({ type: 'disconnect' });
    expect(env.viewer.getSnapshot().stage).toBe('offline');
    env.server.calls.length = 0;
    env.viewer.startComputer();
    expect(env.viewer.getSnapshot().stage).toBe('booting');
    await settle();
    expect(env.server.calls).toEqual(['boot', 'ticket:view']);
    expect(env.lastConnect()?.type).toBe('connect');
    env.viewer.close();
  });

  it('lets a computer that fell asleep in a hidden tab sleep until the tab is seen again', async () => {
    const env = await live();
    env.viewer.setVisible(false);
    env.server.state = 'suspended';
    env.server.calls.length = 0;
    env.viewer.computerUpdated(env.computer());
    env.viewer.frameMessage({ type: 'disconnected', clean: true });
    await jest.advanceTimersByTimeAsync(30_000);
    expect(env.server.calls).not.toContain('wake');
    expect(env.server.calls).not.toContain('ticket:view');
    env.viewer.setVisible(true);
    await settle();
    expect(env.server.calls).toEqual(expect.arrayContaining(['wake', 'ticket:view']));
    expect(env.lastConnect()?.url).toContain('?c=connection-2');
    env.viewer.close();
  });

  it('takes over once the computer is known when the agent asked for it', async () => {
    const env = setup('running');
    env.viewer.frameReady((message) => env.sent.push(message));
    env.viewer.requestTakeover();
    env.viewer.start(false);
    await settle();
    expect(env.server.calls).toContain('takeover');
    env.viewer.frameMessage({ type: 'connected' });
    await settle();
    expect(env.viewer.getSnapshot()).toMatchObject({ control: 'me', driving: true });
    env.viewer.close();
  });

  it('shows a failed boot as an error, with no retry loop', async () => {
    const env = setup('stopped');
    env.api.boot = async () => {
      env.server.calls.push('boot');
      throw new ApiError('INTERNAL', 'no worker', 500);
    };
    env.viewer.start(true);
    await settle();
    expect(env.viewer.getSnapshot().stage).toBe('error');
    await jest.advanceTimersByTimeAsync(60_000);
    expect(env.server.calls.filter((c) => c === 'boot')).toHaveLength(1);
    env.viewer.close();
  });
});
