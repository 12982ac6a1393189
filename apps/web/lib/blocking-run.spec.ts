import { describe, expect, it } from '@jest/globals';
import type { RunView } from '@lazyboy/contracts';
import { blockingParkedRun } from './blocking-run';

type R = Pick<RunView, 'id' | 'status' | 'agentId' | 'chatId' | 'createdAt'>;
const run = (
  id: string,
  status: RunView['status'],
  chatId: string,
  agentId = 'ada',
  createdAt = `2026-01-01T00:00:0${id.length}Z`,
): R => ({
  id,
  status,
  agentId,
  chatId,
  createdAt,
});

describe('the run a queued run waits for', () => {
  it('is the agent’s run parked in another chat', () => {
    const queued = run('q', 'queued', 'chat-b');
    expect(blockingParkedRun(queued, [queued, run('p', 'waiting_input', 'chat-a')])?.id).toBe('p');
    expect(blockingParkedRun(queued, [queued, run('p', 'waiting_takeover', 'chat-a')])?.id).toBe('p');
  });

  it('is none when the agent is executing, parked in this chat, or another agent is parked', () => {
    const queued = run('q', 'queued', 'chat-b');
    expect(blockingParkedRun(queued, [queued, run('x', 'running', 'chat-a')])).toBeNull();
    expect(blockingParkedRun(queued, [queued, run('x', 'waiting_input', 'chat-b')])).toBeNull();
    expect(blockingParkedRun(queued, [queued, run('x', 'waiting_input', 'chat-c', 'bob')])).toBeNull();
    expect(blockingParkedRun(run('r', 'running', 'chat-b'), [run('p', 'waiting_input', 'chat-a')])).toBeNull();
    expect(blockingParkedRun(null, [run('p', 'waiting_input', 'chat-a')])).toBeNull();
  });
});
