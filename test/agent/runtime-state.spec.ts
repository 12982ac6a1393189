import { describe, expect, it } from '@jest/globals';
import { defineTool, HEARTBEAT_MS, UNKNOWN_OUTCOME, type Clock } from '@lazyboy/agent';
import { z } from 'zod';
import { echoTool, harness, lastMessage, toolResults } from './harness.js';

const done = { toolCalls: [{ name: 'report_done', arguments: { summary: 'ok' } }] };

describe('runtime: checkpoints, recovery, cancellation, steering, trimming, events', () => {
  it('checkpoints before and after every tool call', async () => {
    const h = await harness([{ toolCalls: [{ name: 'run_step', arguments: { key: 'build' } }] }, done], {
      tools: [echoTool([], 'command')],
    });
    try {
      await h.runtime.run({ message: 'build it' });
      const before = h.checkpoints.find((c) => c.inflight?.name === 'run_step');
      expect(before).toBeDefined();
      expect(before!.history.at(-1)).toMatchObject({ role: 'assistant', toolCalls: [{ name: 'run_step' }] });
      const after = h.checkpoints[h.checkpoints.indexOf(before!) + 1]!;
      expect(after.inflight).toBeNull();
      expect(after.history.at(-1)).toMatchObject({ role: 'tool', content: 'value of build' });
    } finally {
      await h.close();
    }
  });

  it('keeps what tools report (browser URL, command metadata) and the plan in the checkpoint', async () => {
    const navigate = defineTool({
      name: 'navigate',
      kind: 'browser',
      description: 'test',
      schema: z.object({ url: z.string() }),
      execute: async ({ url }) => ({ content: `opened ${url}`, state: { browserUrl: url } }),
    });
    const h = await harness(
      [
        {
          toolCalls: [
            { name: 'update_plan', arguments: { steps: [{ title: 'Open the shop', status: 'active' }] } },
            { name: 'navigate', arguments: { url: 'http://127.0.0.1:9/shop' } },
          ],
        },
        { toolCalls: [{ name: 'navigate', arguments: { url: 'http://127.0.0.1:9/cart' } }] },
        done,
      ],
      { tools: [navigate] },
    );
    try {
      await h.runtime.run({ message: 'open my cart' });
      const last = h.checkpoints.at(-1)!;
      expect(last.toolState).toEqual({ browserUrl: 'http://127.0.0.1:9/cart' });
      expect(last.plan).toEqual([{ title: 'Open the shop', status: 'active' }]);
      expect(h.checkpoints.some((c) => c.toolState['browserUrl'] === 'http://127.0.0.1:9/shop')).toBe(true);
    } finally {
      await h.close();
    }
  });

  it('recovers an interrupted call as an explicit unknown outcome and never replays it', async () => {
    const log: string[] = [];
    const first = await harness(
      [
        {
          toolCalls: [
            { name: 'run_step', arguments: { key: 'migrate' } },
            { name: 'run_step', arguments: { key: 'notify' } },
          ],
        },
      ],
      { tools: [echoTool(log, 'command')] },
    );
    let crashed;
    try {
      // Simulate a crash: keep the checkpoint taken just before the first call's outcome was recorded.
      await first.runtime.run({ message: 'migrate the database' }).catch(() => undefined);
      crashed = first.checkpoints.find((c) => c.inflight?.name === 'run_step')!;
    } finally {
      await first.close();
    }
    log.length = 0;
    const second = await harness([done], { tools: [echoTool(log, 'command')] });
    try {
      const { outcome } = await second.runtime.run({ resume: crashed });
      expect(outcome.status).toBe('done');
      expect(log).toEqual([]);
      expect(toolResults(second, 0)).toEqual([UNKNOWN_OUTCOME('run_step'), expect.stringContaining('not run')]);
    } finally {
      await second.close();
    }
  });

  it('stops at the next safe boundary when cancelled, and the checkpoint resumes the run', async () => {
    const controller = new AbortController();
    const log: string[] = [];
    const slow = defineTool({
      name: 'slow_step',
      kind: 'command',
      description: 'test',
      schema: z.object({ key: z.string() }),
      execute: async ({ key }) => {
        log.push(key);
        if (key === 'one') controller.abort(); // the user presses Ctrl-C while this runs
        return { content: `did ${key}` };
      },
    });
    const h = await harness(
      [
        {
          toolCalls: [
            { name: 'slow_step', arguments: { key: 'one' } },
            { name: 'slow_step', arguments: { key: 'two' } },
          ],
        },
        done,
      ],
      { tools: [slow] },
    );
    try {
      const first = await h.runtime.run({ message: 'do both steps', signal: controller.signal });
      expect(first.outcome.status).toBe('cancelled');
      expect(log).toEqual(['one']);
      expect(first.checkpoint.history.slice(-2)).toEqual([
        { role: 'tool', toolCallId: expect.any(String), content: 'did one' },
        { role: 'tool', toolCallId: expect.any(String), content: expect.stringContaining('not run') },
      ]);
      const resumed = await h.runtime.run({ resume: first.checkpoint, message: 'go on' });
      expect(resumed.outcome.status).toBe('done');
      expect(log).toEqual(['one']);
    } finally {
      await h.close();
    }
  });

  it('applies input typed while working at the next boundary (steering)', async () => {
    const ref: { runtime?: { steer(text: string): void } } = {};
    const steerDuring = defineTool({
      name: 'search',
      kind: 'command',
      description: 'test',
      schema: z.object({ q: z.string() }),
      execute: async ({ q }) => {
        ref.runtime?.steer('Only look at flights before noon.');
        return { content: `results for ${q}` };
      },
    });
    const h = await harness([{ toolCalls: [{ name: 'search', arguments: { q: 'flights to Tokyo' } }] }, done], {
      tools: [steerDuring],
    });
    ref.runtime = h.runtime;
    try {
      await h.runtime.run({ message: 'find me a flight' });
      expect(lastMessage(h, 1)).toEqual({ role: 'user', content: 'Only look at flights before noon.' });
      expect(h.events).toContainEqual({ type: 'steering', text: 'Only look at flights before noon.' });
    } finally {
      await h.close();
    }
  });

  it('trims the request, not the stored history', async () => {
    const big = defineTool({
      name: 'dump',
      kind: 'read',
      description: 'test',
      schema: z.object({ n: z.number() }),
      execute: async ({ n }) => ({ content: `dump ${n} `.padEnd(50_000, '.') }),
    });
    let n = 0;
    const h = await harness(() => (++n <= 6 ? { toolCalls: [{ name: 'dump', arguments: { n } }] } : done), {
      tools: [big],
      trim: { maxChars: 60_000, keepRecent: 2, toolResultChars: 1_000 },
    });
    try {
      const { checkpoint } = await h.runtime.run({ message: 'read all dumps' });
      const sent = toolResults(h, 6);
      expect(sent[0]!.length).toBeLessThan(1_200);
      expect(sent.at(-1)!.length).toBe(50_000);
      const stored = checkpoint.history.flatMap((m) =>
        m.role === 'tool' && String(m.content).startsWith('dump') ? [m.content as string] : [],
      );
      expect(stored.map((c) => c.length)).toEqual(new Array(6).fill(50_000));
      expect(h.server.requests[6]!.messages[0]).toEqual({ role: 'system', content: 'You are a test agent.' });
      expect(h.server.requests[6]!.messages[1]).toEqual({ role: 'user', content: 'read all dumps' });
    } finally {
      await h.close();
    }
  });

  it('streams model deltas as events and sends a heartbeat naming what it awaits every 20 s', async () => {
    const ticks: Array<() => void> = [];
    let now = 0;
    const clock: Clock = {
      now: () => now,
      every: (ms, fn) => {
        expect(ms).toBe(HEARTBEAT_MS);
        ticks.push(fn);
        return () => ticks.splice(ticks.indexOf(fn), 1);
      },
    };
    const slowTool = defineTool({
      name: 'render_video',
      kind: 'command',
      description: 'test',
      schema: z.object({}),
      execute: async () => {
        now += 20_000;
        for (const tick of [...ticks]) tick();
        return { content: 'rendered' };
      },
    });
    const h = await harness([{ text: 'Rendering now.', toolCalls: [{ name: 'render_video', arguments: {} }] }, done], {
      tools: [slowTool],
      clock,
    });
    try {
      await h.runtime.run({ message: 'render the video' });
      expect(h.events.filter((e) => e.type === 'model_delta').length).toBeGreaterThan(2);
      expect(h.events).toContainEqual({ type: 'heartbeat', awaiting: 'tool render_video', sinceMs: 20_000 });
      expect(ticks).toHaveLength(0);
    } finally {
      await h.close();
    }
  });
});
