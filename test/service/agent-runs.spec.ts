import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageView, RealtimeEvent, RunView } from '@lazyboy/contracts';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import pg from 'pg';
import { FINAL, ServiceHarness, startButtonSite } from './service-harness.js';
import { lastPersonText, lastToolText, until } from '../support/index.js';

// A user talks to an agent through the API, with real Postgres, Redis and a real worker (Xvfb, Chromium)
// spawned by the local pool driver; only the model is scripted.

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });

describe('an agent at work, over HTTP and socket.io', () => {
  const harness = new ServiceHarness();
  let site: Awaited<ReturnType<typeof startButtonSite>>;

  /** The scripted model: decides each answer from the conversation, like a model would. */
  function answer(request: ReceivedRequest): Turn {
    const asked = lastPersonText(request);
    const tool = lastToolText(request);
    if (/^(hello|hi)\b/i.test(asked)) return { text: 'Hi! I am Ada. What shall we do?' };
    if (asked.startsWith('Press the button')) {
      if (!tool)
        return {
          toolCalls: [
            call('send_message', { text: 'Opening the page.' }),
            call('browser', { action: 'navigate', url: site.url }),
          ],
        };
      const button = /\[(\d+)\] button "Press me"/.exec(tool);
      if (tool.includes('Pressed!'))
        return { toolCalls: [call('report_done', { summary: 'I pressed the button: the page says Pressed!' })] };
      // The page updates once its request returns: having clicked, look again rather than click twice.
      const clicked = request.messages.some(
        (m) => m.role === 'assistant' && (m.toolCalls ?? []).some((c) => c.arguments.includes('"click"')),
      );
      if (clicked) return { toolCalls: [call('browser', { action: 'observe' })] };
      if (button) return { toolCalls: [call('browser', { action: 'click', element: Number(button[1]) })] };
      return { toolCalls: [call('report_blocked', { reason: `unexpected page: ${tool.slice(0, 200)}` })] };
    }
    if (asked.startsWith('Look at the page')) {
      if (!tool) return { toolCalls: [call('browser', { action: 'navigate', url: site.url })] };
      if (tool.includes('handed back control')) return { toolCalls: [call('browser', { action: 'observe' })] };
      return { toolCalls: [call('report_done', { summary: 'Looked at the page after the takeover.' })] };
    }
    if (asked.startsWith('Ask me to log in')) {
      if (!tool) return { toolCalls: [call('request_takeover', { reason: 'Please log in for me.' })] };
      return { toolCalls: [call('report_done', { summary: 'Carrying on after the hand-back.' })] };
    }
    const count = /^Count to (\d+)/.exec(asked);
    // A run that takes a moment, so that messages sent together arrive while the first is still at work
    // even on a busy machine (an instant answer let the first run end before the third message came in).
    if (count) return { text: `${count[1]}, done.`, delayMs: 800 };
    return { text: `I cannot do "${asked}".` };
  }

  beforeAll(async () => {
    site = await startButtonSite();
    await harness.start((request) => answer(request));
  });

  afterAll(async () => {
    await harness.stop();
    await site?.close();
  }, 120_000);

  it('answers a greeting in plain text, with no tools and without booting a computer', async () => {
    const { user, agentId, chatId } = await harness.userWithAgent();
    const { socket, events } = await harness.socket(user, [{ kind: 'chat', id: chatId }]);
    try {
      const before = harness.model.requests.length;
      const sent = await harness.send(user, chatId, 'Hello there!');
      expect(sent.run.kind).toBe('chat');
      const run = await harness.runUntil(user, sent.run.id, FINAL);
      expect(run).toMatchObject({ status: 'completed', resultText: 'Hi! I am Ada. What shall we do?' });

      const requests = harness.model.requests.slice(before);
      expect(requests).toHaveLength(1);
      expect(requests[0]!.tools).toHaveLength(0);

      const computer = await harness.call<{ computer: unknown; screen: unknown }>(user, 'GET', `/api/agents/${agentId}/computer`);
      expect(computer).toEqual({ computer: null, screen: null });

      const page = await harness.call<{ items: MessageView[] }>(user, 'GET', `/api/chats/${chatId}/messages`);
      expect(page.items.map((m) => [m.role, m.text])).toEqual([
        ['user', 'Hello there!'],
        ['assistant', 'Hi! I am Ada. What shall we do?'],
      ]);
      await until('run.updated completed', () => events.some((e) => e.type === 'run.updated' && e.run.status === 'completed'), {
        timeoutMs: 5_000,
      });
      const created = events.filter(
        (e): e is Extract<RealtimeEvent, { type: 'message.created' }> => e.type === 'message.created',
      );
      expect(created.map((e) => e.message.text)).toEqual(['Hello there!', 'Hi! I am Ada. What shall we do?']);
    } finally {
      socket.disconnect();
    }
  });

  it('returns the same message and run when a POST is retried with its clientNonce', async () => {
    const { user, chatId } = await harness.userWithAgent();
    const [first, second] = await Promise.all([
      harness.send(user, chatId, 'Hi again', 'retry-nonce-0001'),
      harness.send(user, chatId, 'Hi again', 'retry-nonce-0001'),
    ]);
    expect(second.message.id).toBe(first.message.id);
    expect(second.run.id).toBe(first.run.id);
    expect([first.replayed, second.replayed].sort()).toEqual([false, true]);
    await harness.runUntil(user, first.run.id, FINAL);
    const third = await harness.send(user, chatId, 'Hi again', 'retry-nonce-0001');
    expect(third).toMatchObject({
      replayed: true,
      message: { id: first.message.id },
      run: { id: first.run.id, status: 'completed' },
    });
    const page = await harness.call<{ items: MessageView[] }>(user, 'GET', `/api/chats/${chatId}/messages`);
    expect(page.items.filter((m) => m.role === 'user')).toHaveLength(1);
    // The same nonce for different text in another chat is a client bug: refused, nothing written.
    const other = await harness.call<{ id: string }>(user, 'POST', `/api/agents/${first.run.agentId}/chats`, {});
    const reused = await harness.raw(user, 'POST', `/api/chats/${other.id}/messages`, {
      text: 'x',
      clientNonce: 'retry-nonce-0001',
    });
    expect(reused.status).toBe(409);
    expect(((await reused.json()) as { error: { code: string } }).error.code).toBe('CONFLICT');
  });

  it('opens a local page, clicks its button and answers, with busy steps on the way', async () => {
    const { user, agentId, chatId } = await harness.userWithAgent();
    const { socket, events } = await harness.socket(user, [
      { kind: 'agent', id: agentId },
      { kind: 'chat', id: chatId },
    ]);
    try {
      const sent = await harness.send(user, chatId, 'Press the button on my test page');
      expect(sent.run.kind).toBe('general');
      const run = await harness.runUntil(user, sent.run.id, FINAL, 120_000);
      expect(run).toMatchObject({ status: 'completed', resultText: 'I pressed the button: the page says Pressed!' });
      expect(site.clicks()).toBe(1);

      const page = await harness.call<{ items: MessageView[] }>(user, 'GET', `/api/chats/${chatId}/messages`);
      expect(page.items.map((m) => m.text)).toEqual([
        'Press the button on my test page',
        'Opening the page.',
        'I pressed the button: the page says Pressed!',
      ]);
      const steps = events.flatMap((e) => (e.type === 'run.updated' && e.run.busyStep ? [e.run.busyStep] : []));
      expect(steps).toContainEqual({ kind: 'booting' });
      expect(steps.some((s) => s.kind === 'browser_click')).toBe(true);
      expect(events.some((e) => e.type === 'computer.updated' && e.computer.state === 'running')).toBe(true);

      const computer = await harness.call<{ computer: { state: string } }>(user, 'GET', `/api/agents/${agentId}/computer`);
      expect(computer.computer.state).toBe('running');
      const stored = await harness.call<{ type: string }[]>(user, 'GET', `/api/runs/${run.id}/events`);
      expect(stored.map((e) => e.type)).toEqual(expect.arrayContaining(['tool_call', 'tool_result', 'message', 'done']));
    } finally {
      socket.disconnect();
    }
  });

  it('works through messages sent to one agent at the same moment one at a time, each exactly once', async () => {
    const { user, chatId } = await harness.userWithAgent('Bea');
    const sent = await Promise.all([1, 2, 3, 4, 5].map((n) => harness.send(user, chatId, `Count to ${n}`)));
    // The first message's run may be leased in the accepting statement itself; the others wait for it.
    expect(sent.filter((s) => s.queuedBehindActive).length).toBeGreaterThanOrEqual(3);
    for (const s of sent) expect((await harness.runUntil(user, s.run.id, FINAL)).status).toBe('completed');

    const db = new pg.Client({ connectionString: harness.database.url });
    await db.connect();
    try {
      const { rows } = await db.query<{ id: string; started: Date; finished: Date }>(
        'SELECT id, "startedAt" AS started, "finishedAt" AS finished FROM "Run" WHERE id = ANY($1::uuid[]) ORDER BY "startedAt"',
        [sent.map((s) => s.run.id)],
      );
      expect(rows).toHaveLength(5);
      for (let i = 1; i < rows.length; i++)
        expect(rows[i]!.started.getTime()).toBeGreaterThanOrEqual(rows[i - 1]!.finished.getTime());
      // The database itself refuses a second active run of one agent, whoever would start it.
      const agentId = (await db.query<{ agentId: string }>('SELECT "agentId" FROM "Run" WHERE id = $1', [rows[0]!.id])).rows[0]!
        .agentId;
      await db.query(`UPDATE "Run" SET status = 'waiting_input' WHERE id = $1`, [rows[0]!.id]);
      await expect(db.query(`UPDATE "Run" SET status = 'leased' WHERE id = $1`, [rows[1]!.id])).rejects.toThrow(
        /Run_one_executing_per_agent/,
      );
      await db.query(`UPDATE "Run" SET status = 'completed' WHERE "agentId" = $1`, [agentId]);
    } finally {
      await db.end();
    }
    const renamed = await harness.call<{ title: string }>(user, 'PATCH', `/api/chats/${chatId}`, { title: 'Counting' });
    expect(renamed.title).toBe('Counting');
    const history = await harness.call<{ items: MessageView[] }>(user, 'GET', `/api/chats/${chatId}/messages?limit=50`);
    const answers = history.items.filter((m) => m.role === 'assistant').map((m) => m.text);
    expect(answers.sort()).toEqual(['1, done.', '2, done.', '3, done.', '4, done.', '5, done.']);
  });

  it('goes on when the person hands back a run that asked for them, even without having taken control', async () => {
    const { user, agentId, chatId } = await harness.userWithAgent('Cleo');
    const sent = await harness.send(user, chatId, 'Ask me to log in somewhere');
    const parked = await harness.runUntil(user, sent.run.id, (r) => r.status === 'waiting_takeover' || FINAL(r), 60_000);
    expect(parked.question).toMatchObject({ kind: 'takeover', prompt: 'Please log in for me.' });
    const released = await harness.call<{ run: RunView | null }>(user, 'POST', `/api/agents/${agentId}/computer/release`);
    expect(released.run).toMatchObject({ id: sent.run.id, status: expect.stringMatching(/queued|leased|running|completed/) });
    const done = await harness.runUntil(user, sent.run.id, FINAL, 60_000);
    expect(done).toMatchObject({ status: 'completed', resultText: 'Carrying on after the hand-back.' });
  });

  it('parks a run while a person has taken over, and continues from the screen on release', async () => {
    const { user, agentId, chatId } = await harness.userWithAgent();
    const taken = await harness.call<{ screen: { controlHolder: string } }>(
      user,
      'POST',
      `/api/agents/${agentId}/computer/takeover`,
    );
    expect(taken.screen.controlHolder).toBe('user');

    const sent = await harness.send(user, chatId, 'Look at the page for me');
    const parked = await harness.runUntil(user, sent.run.id, (r) => r.status === 'waiting_takeover' || FINAL(r), 120_000);
    expect(parked.status).toBe('waiting_takeover');
    expect(parked.question?.kind).toBe('takeover');
    // What the sidebar shows for the agent: its parked run, among the workspace's active ones.
    const active = await harness.call<{ items: RunView[] }>(user, 'GET', `/api/workspaces/${user.workspaceId}/runs/active`);
    expect(active.items.map((r) => [r.id, r.status])).toEqual([[sent.run.id, 'waiting_takeover']]);

    // While the person works, a new message queues behind the parked run.
    const queued = await harness.send(user, chatId, 'Hello, are you there?');
    expect(queued.queuedBehindActive).toBe(true);

    const released = await harness.call<{ run: RunView | null; screen: { controlHolder: string } }>(
      user,
      'POST',
      `/api/agents/${agentId}/computer/release`,
    );
    expect(released.screen.controlHolder).toBe('agent');
    expect(released.run).toMatchObject({ id: sent.run.id, status: expect.stringMatching(/queued|leased|running/) });
    const done = await harness.runUntil(user, sent.run.id, FINAL, 120_000);
    expect(done).toMatchObject({ status: 'completed', resultText: 'Looked at the page after the takeover.' });
    const after = await harness.runUntil(user, queued.run.id, FINAL, 60_000);
    expect(after.status).toBe('completed');
  });
});
