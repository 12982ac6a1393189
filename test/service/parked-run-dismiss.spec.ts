import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunView } from '@lazyboy/contracts';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { createApiToken, createInvitation, lastPersonText, signUp } from '../support/index.js';
import { FINAL, ServiceHarness } from './service-harness.js';

// A run parked on a question holds its agent for every chat and every person. Anyone who may use the agent
// (a member of its workspace) can dismiss it (POST /api/runs/:id/cancel), and the run queued behind it in
// another chat goes ahead; nobody else can, and a run that is over stays as it was.

function script(request: ReceivedRequest): Turn {
  const asked = lastPersonText(request);
  if (asked === 'order a pizza') return { toolCalls: [{ name: 'request_user_input', arguments: { question: 'Which size?' } }] };
  return { text: `Echo: ${asked}` };
}

describe('dismissing the parked run that blocks an agent', () => {
  const harness = new ServiceHarness();

  beforeAll(async () => {
    await harness.start(script);
  }, 60_000);

  afterAll(async () => {
    await harness.stop();
  }, 60_000);

  /** An agent whose run in one chat waits for an answer, and a message of another chat queued behind it. */
  async function blocked() {
    const { user, agentId, chatId } = await harness.userWithAgent();
    const other = await harness.call<{ id: string }>(user, 'POST', `/api/agents/${agentId}/chats`, { title: 'Weekend' });
    const asked = await harness.send(user, chatId, 'order a pizza');
    await harness.runUntil(user, asked.run.id, (run) => run.status === 'waiting_input');
    const behind = await harness.send(user, other.id, 'hello');
    expect(behind).toMatchObject({ queuedBehindActive: true, run: { status: 'queued' } });
    return { user, agentId, parked: asked.run.id, behind: behind.run.id };
  }

  it('lets a member of the workspace dismiss it; the queued run goes ahead, and a second dismiss is a 409 that changes nothing', async () => {
    const { user, parked, behind } = await blocked();
    const email = `member-${Math.random().toString(36).slice(2)}@example.test`;
    const token = await createInvitation(harness.app.url, user.cookie, user.workspaceId, email, 'member');
    const member = await signUp(harness.app.url, { email, invitationToken: token });

    const dismissed = await harness.call<RunView>(member, 'POST', `/api/runs/${parked}/cancel`);
    expect(dismissed).toMatchObject({ id: parked, status: 'cancelled' });
    expect(await harness.runUntil(user, behind, FINAL)).toMatchObject({ status: 'completed', resultText: 'Echo: hello' });

    const again = await harness.raw(member, 'POST', `/api/runs/${parked}/cancel`);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: 'CONFLICT', reason: 'run_ended' } });
    const after = await harness.call<RunView>(user, 'GET', `/api/runs/${parked}`);
    expect(after).toEqual(dismissed);
  }, 60_000);

  it('is a 404 for another workspace’s person and for a token limited to another workspace, and nothing moves', async () => {
    const { user, parked, behind } = await blocked();
    const stranger = await signUp(harness.app.url);
    const refused = await harness.raw(stranger, 'POST', `/api/runs/${parked}/cancel`);
    expect(refused.status).toBe(404);

    // The owner's own token, but limited to their other workspace: this agent is not one it can see.
    const elsewhere = await harness.call<{ id: string }>(user, 'POST', '/api/workspaces', { name: 'Elsewhere' });
    const secret = await createApiToken(harness.app.url, user.cookie, elsewhere.id);
    const limited = await fetch(`${harness.app.url}/api/runs/${parked}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(limited.status).toBe(404);

    expect(await harness.call<RunView>(user, 'GET', `/api/runs/${parked}`)).toMatchObject({ status: 'waiting_input' });
    expect(await harness.call<RunView>(user, 'GET', `/api/runs/${behind}`)).toMatchObject({ status: 'queued' });
  }, 60_000);

  it('takes two dismisses at once as one: one 201, one 409', async () => {
    const { user, parked, behind } = await blocked();
    const answers = await Promise.all([1, 2].map(() => harness.raw(user, 'POST', `/api/runs/${parked}/cancel`)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(await harness.runUntil(user, behind, FINAL)).toMatchObject({ status: 'completed', resultText: 'Echo: hello' });
    expect(await harness.call<RunView>(user, 'GET', `/api/runs/${parked}`)).toMatchObject({ status: 'cancelled' });
  }, 60_000);
});
