import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BrowserActionResponse, BrowserTab } from '@lazyboy/contracts';
import { startLoginSite } from '../../../../libs/desktop/src/testing/login-site.js';
import type { TestSite } from '../../../../libs/desktop/src/testing/test-site.js';
import { WorkerFixture, type Answer } from '../testing/worker-fixture.js';

/** The number the observation gave the element described by `label`, e.g. 'link "Notes"'. */
function numberOf(observation: string, label: string): number {
  const line = observation.split('\n').find((l) => l.includes(label));
  const id = /^\[(\d+)\]/.exec(line ?? '')?.[1];
  if (!id) throw new Error(`no element ${label} in:\n${observation}`);
  return Number(id);
}

describe('the agent’s browser after its worker is restarted (real Xvfb, Chromium over CDP)', () => {
  const first = new WorkerFixture('state-spec', 1);
  let second: WorkerFixture | undefined;
  let site: TestSite;
  const act = (worker: WorkerFixture, action: string, body: Record<string, unknown>) =>
    worker.post(`/browser/${action}`, { slot: 0, ...body }) as Promise<Answer<BrowserActionResponse>>;

  beforeAll(async () => {
    site = await startLoginSite();
    await first.start();
  });

  afterAll(async () => {
    await (second ?? first).stop();
    await site?.close();
  });

  it('finds the tabs it left, the same one active, still signed in, with element numbers that work', async () => {
    expect((await first.post('/screens/ensure', { slot: 0, profileKey: 'agent-a', fence: 1 })).status).toBe(200);
    const form = await act(first, 'navigate', { fence: 1, url: `${site.url}login` });
    const signedIn = await act(first, 'type', {
      fence: 1,
      element: numberOf(form.body.observation, 'textbox'),
      text: 'Ada',
      submit: true,
    });
    expect(signedIn.body).toMatchObject({ url: `${site.url}account` });
    expect(signedIn.body.observation).toContain('logged in as Ada');
    await act(first, 'tabs', { fence: 1, op: 'new', url: `${site.url}notes` });
    const before = await act(first, 'tabs', { fence: 1, op: 'switch', index: 0 });
    expect(before.body.tabs?.map((tab) => [tab.url, tab.active])).toEqual([
      [`${site.url}account`, true],
      [`${site.url}notes`, false],
    ]);

    // Idle: the computer is suspended (its browser's state saved then), and its worker stopped the way
    // SIGTERM stops it; a new worker then serves the same home.
    expect((await first.post('/computer/suspend', {})).status).toBe(200);
    await first.shutDown();
    second = new WorkerFixture('state-spec', 1, first.root);
    await second.start();
    expect((await second.post('/screens/ensure', { slot: 0, profileKey: 'agent-a', fence: 2 })).status).toBe(200);

    const observed = await act(second, 'observe', { fence: 2 });
    expect(observed.body).toMatchObject({ url: `${site.url}account` });
    expect(observed.body.observation).toContain('logged in as Ada');
    const listed = await act(second, 'tabs', { fence: 2, op: 'list' });
    expect(listed.body.tabs?.map((tab: BrowserTab) => [tab.url, tab.active]).sort()).toEqual([
      [`${site.url}account`, true],
      [`${site.url}notes`, false],
    ]);
    const clicked = await act(second, 'click', {
      fence: 2,
      element: numberOf(listed.body.observation, 'link "Notes"'),
    });
    expect(clicked.status).toBe(200);
    expect(clicked.body).toMatchObject({ url: `${site.url}notes`, title: 'Notes' });
  });
});
