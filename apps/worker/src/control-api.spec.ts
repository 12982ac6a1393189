import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BrowserActionResponse, ScreenInfo, ScreensResponse, WorkerErrorBody } from '@lazyboy/contracts';
import { startSite, WorkerFixture } from './testing/worker-fixture.js';

const COUNTER_PAGE = `<!doctype html><title>Counter</title>
<h1>Counter</h1>
<p id="count">clicks: 0</p>
<button onclick="window.n = (window.n || 0) + 1; document.getElementById('count').textContent = 'clicks: ' + window.n">Add one</button>
<label>Your name <input id="name" oninput="document.getElementById('echo').textContent = 'Hello ' + this.value"></label>
<p id="echo"></p>
<a href="/second">Second page</a>`;
const SECOND_PAGE = '<!doctype html><title>Second</title><p>the second page</p>';
const TYPE_PAGE = '<!doctype html><title>Type</title><textarea id="t" autofocus></textarea>';
/** Sixty different characters: far more than x11vnc's spare keys could type. */
const CHINESE =
  '的一是不了人我在有他這中大來上國個到說們為子和你地出道也時年得就那要下以生會自著去之過家學對可她裡後小麼心多天而能好都然沒日';

type Action = Answer<BrowserActionResponse>;
type Failure = Answer<WorkerErrorBody>;
interface Answer<T> {
  status: number;
  body: T;
}

/** The number the latest observation gave the element described by `label`, e.g. 'button "Add one"'. */
function numberOf(observation: string, label: string): number {
  const line = observation.split('\n').find((l) => l.includes(label));
  const id = /^\[(\d+)\]/.exec(line ?? '')?.[1];
  if (!id) throw new Error(`no element ${label} in:\n${observation}`);
  return Number(id);
}

describe('worker control API (real Xvfb, Chromium over CDP)', () => {
  const worker = new WorkerFixture('api-spec', 2);
  let site: Awaited<ReturnType<typeof startSite>>;
  const act = (action: string, body: Record<string, unknown>) =>
    worker.post(`/browser/${action}`, { slot: 0, ...body }) as Promise<Action>;
  const fail = (action: string, body: Record<string, unknown>) =>
    worker.post(`/browser/${action}`, { slot: 0, ...body }) as Promise<Failure>;
  const clicks = async (fence: number) => /clicks: (\d+)/.exec((await act('observe', { fence })).body.observation)?.[1];

  beforeAll(async () => {
    site = await startSite({ '/': COUNTER_PAGE, '/second': SECOND_PAGE, '/type': TYPE_PAGE });
    await worker.start();
  });

  afterAll(async () => {
    await worker.stop();
    await site?.close();
  });

  it('refuses calls without the token, before doing anything', async () => {
    const res = await fetch(`${worker.base}/browser/observe`, { method: 'POST', body: JSON.stringify({ slot: 0, fence: 1 }) });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    expect(worker.screens.state(0)).toEqual({ state: 'stopped' });
  });

  it('ensures a screen and lists it without secrets', async () => {
    const ensured = (await worker.post('/screens/ensure', { slot: 0, profileKey: 'agent-a', fence: 1 })) as Answer<ScreenInfo>;
    expect(ensured.status).toBe(200);
    expect(ensured.body).toMatchObject({ slot: 0, state: 'running', profileKey: 'agent-a', executionFence: 1 });
    expect(ensured.body.control).toEqual({ holder: 'agent', fence: 0 });
    expect(Object.keys(ensured.body.endpoints ?? {}).sort()).toEqual(['display']);

    const listed = (await worker.get('/screens')) as Answer<ScreensResponse>;
    expect(listed.body).toMatchObject({ computerId: 'api-spec', suspended: false, screenLimit: 2 });
    expect(listed.body.screens.map((s) => [s.slot, s.state])).toEqual([[0, 'running']]);
    expect(JSON.stringify(listed.body)).not.toMatch(/xauthority|cdp|dbus|profileDir|vncSocket|sock/i);
  });

  it('sends a screenshot only when the page changed since the last one sent', async () => {
    const navigated = await act('navigate', { fence: 1, url: `${site.url}/` });
    expect(navigated.status).toBe(200);
    expect(navigated.body).toMatchObject({ url: `${site.url}/`, title: 'Counter', control: 'agent' });
    expect(navigated.body.observation).toContain('button "Add one"');
    expect(navigated.body.screenshot?.mimeType).toBe('image/png');
    expect(
      Buffer.from(navigated.body.screenshot?.data ?? '', 'base64')
        .subarray(1, 4)
        .toString('latin1'),
    ).toBe('PNG');

    const again = await act('observe', { fence: 1 });
    expect(again.status).toBe(200);
    expect(again.body.screenshot).toBeNull();
    expect(again.body.generation).toBeGreaterThan(navigated.body.generation);

    const forced = await act('observe', { fence: 1, screenshot: 'always' });
    expect(forced.body.screenshot).not.toBeNull();
  });

  it('clicks and types by element number', async () => {
    const seen = await act('observe', { fence: 1 });
    const clicked = await act('click', {
      fence: 1,
      element: numberOf(seen.body.observation, 'button "Add one"'),
    });
    expect(clicked.status).toBe(200);
    expect(clicked.body.observation).toContain('clicks: 1');
    expect(clicked.body.screenshot).not.toBeNull();

    const typed = await act('type', {
      fence: 1,
      element: numberOf(clicked.body.observation, 'textbox "Your name"'),
      text: 'Ada',
    });
    expect(typed.status).toBe(200);
    expect(typed.body.observation).toContain('Hello Ada');

    // The button kept its number through the observations since; on a new document it is gone, and its
    // number is refused rather than aimed at whatever is there now.
    const button = numberOf(seen.body.observation, 'button "Add one"');
    expect(numberOf(typed.body.observation, 'button "Add one"')).toBe(button);
    const reloaded = await act('navigate', { fence: 1, url: `${site.url}/` });
    expect(numberOf(reloaded.body.observation, 'button "Add one"')).not.toBe(button);
    const stale = await fail('click', { fence: 1, element: button });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('STALE_ELEMENT');
    expect(await clicks(1)).toBe('0');
    // The new document's number works (and leaves the count the cases below go on from).
    const again = await act('click', { fence: 1, element: numberOf(reloaded.body.observation, 'button "Add one"') });
    expect(again.body.observation).toContain('clicks: 1');
  });

  it('lets a newer fence take over and refuses the older holder, doing nothing', async () => {
    const taken = await act('observe', { fence: 3 });
    expect(taken.status).toBe(200);
    // A new run has seen nothing yet: it gets the screenshot even though the page did not change.
    expect(taken.body.screenshot).not.toBeNull();
    const button = numberOf(taken.body.observation, 'button "Add one"');

    const refused = await fail('click', { fence: 1, element: button });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'STALE_FENCE', details: { slot: 0, fence: 1, newestFence: 3 } });
    const ensureRefused = (await worker.post('/screens/ensure', { slot: 0, profileKey: 'agent-a', fence: 2 })) as Failure;
    expect(ensureRefused.body.error?.code).toBe('STALE_FENCE');

    const after = await act('observe', { fence: 3 });
    expect(after.body.observation).toContain('clicks: 1');
    const clicked = await act('click', { fence: 3, element: numberOf(after.body.observation, 'button "Add one"') });
    expect(clicked.status).toBe(200);
    expect(clicked.body.observation).toContain('clicks: 2');
  });

  it('refuses agent actions while a person holds the screen, and acts again after the release', async () => {
    const takeover = await worker.post('/screens/control', { slot: 0, holder: 'user', fence: 1 });
    expect(takeover).toEqual({ status: 200, body: { slot: 0, control: { holder: 'user', fence: 1 } } });

    const looked = await act('observe', { fence: 3 });
    expect(looked.status).toBe(200);
    expect(looked.body.control).toBe('user');
    const button = numberOf(looked.body.observation, 'button "Add one"');
    const refused = await fail('click', { fence: 3, element: button });
    expect(refused.status).toBe(423);
    expect(refused.body.error).toMatchObject({ code: 'CONTROL_HELD_BY_USER', details: { slot: 0, holder: 'user' } });
    expect(refused.body.error.message).toContain('taken over');

    // The same control fence cannot be reused to flip the holder back: only a newer lease can.
    const staleRelease = (await worker.post('/screens/control', { slot: 0, holder: 'agent', fence: 1 })) as Failure;
    expect(staleRelease.status).toBe(409);
    expect(staleRelease.body.error.code).toBe('STALE_FENCE');
    expect(await clicks(3)).toBe('2');

    const release = await worker.post('/screens/control', { slot: 0, holder: 'agent', fence: 2 });
    expect(release.body).toEqual({ slot: 0, control: { holder: 'agent', fence: 2 } });
    const clicked = await act('click', { fence: 3, element: button });
    expect(clicked.status).toBe(200);
    expect(clicked.body.observation).toContain('clicks: 3');
  });

  it('answers bad bodies with 400 and does nothing', async () => {
    const button = numberOf((await act('observe', { fence: 3 })).body.observation, 'button "Add one"');
    const cases: Array<[string, unknown, string?]> = [
      ['click', { slot: 0, fence: 99, element: 'one' }],
      ['click', { slot: 0, fence: 99, element: button, fense: 4 }],
      ['click', { slot: 0, fence: -1, element: button }],
      ['click', { slot: 0, element: button }],
      ['scroll', { slot: 0, fence: 99, direction: 'sideways' }],
      ['navigate', { slot: 0, fence: 99, url: 'not a url' }],
      ['tabs', { slot: 0, fence: 99, op: 'switch' }],
      ['click', undefined, '{"slot":0,"fence":99,'],
    ];
    for (const [action, body, raw] of cases) {
      const answer = (await worker.post(`/browser/${action}`, body, raw)) as Failure;
      expect([action, answer.status, answer.body.error.code]).toEqual([action, 400, 'VALIDATION_FAILED']);
    }
    const detailed = (await worker.post('/browser/click', { slot: 0, fence: 3, element: 'one' })) as Failure;
    expect(detailed.body.error.details).toMatchObject({ issues: [{ path: 'element' }] });
    const badEnsure = (await worker.post('/screens/ensure', { slot: 0, profileKey: '../etc' })) as Failure;
    expect([badEnsure.status, badEnsure.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const tooBig = (await worker.post('/browser/type', { slot: 0, fence: 3, element: 1, text: 'x'.repeat(300_000) })) as Failure;
    expect([tooBig.status, tooBig.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);

    // None of them clicked, and none of their fences (99) was taken as the newest.
    const after = await act('observe', { fence: 3 });
    expect(after.status).toBe(200);
    expect(after.body.observation).toContain('clicks: 3');
  });

  it('navigates tabs, history, keys, scroll and eval', async () => {
    const page = await act('observe', { fence: 3 });
    const linked = await act('click', { fence: 3, element: numberOf(page.body.observation, 'link "Second page"') });
    expect(linked.body.title).toBe('Second');
    const back = await act('back', { fence: 3 });
    expect(back.body).toMatchObject({ title: 'Counter', result: { moved: true } });
    const evaluated = await act('eval', { fence: 3, expression: 'document.title + " " + (1 + 1)' });
    expect(evaluated.body.result).toEqual({ value: 'Counter 2' });
    const thrown = await fail('eval', { fence: 3, expression: 'no_such_name.x' });
    expect([thrown.status, thrown.body.error.code]).toEqual([422, 'BROWSER_ACTION_FAILED']);
    expect((await act('scroll', { fence: 3, direction: 'down' })).status).toBe(200);
    expect((await act('key', { fence: 3, keys: 'End' })).status).toBe(200);

    const opened = await act('tabs', { fence: 3, op: 'new', url: `${site.url}/second` });
    expect(opened.body.title).toBe('Second');
    expect(opened.body.tabs?.map((t) => [t.index, t.active])).toEqual([
      [0, false],
      [1, true],
    ]);
    const closed = await act('tabs', { fence: 3, op: 'close', index: 1 });
    expect(closed.body).toMatchObject({ title: 'Counter', tabs: [{ index: 0, active: true }] });
  });

  it('says "profile locked" when a second screen asks for a profile in use', async () => {
    const locked = (await worker.post('/screens/ensure', { slot: 1, profileKey: 'agent-a' })) as Failure;
    expect(locked.status).toBe(409);
    expect(locked.body.error).toMatchObject({ code: 'PROFILE_LOCKED', details: { slot: 1, profileKey: 'agent-a' } });
    expect(locked.body.error.message).toMatch(/profile locked.*files and shell still work/);
    const browser = (await worker.post('/browser/observe', { slot: 1, fence: 1 })) as Failure;
    expect([browser.status, browser.body.error.code]).toEqual([409, 'PROFILE_LOCKED']);
    expect(worker.screens.state(1)).toEqual({ state: 'stopped' });
  });

  it('suspends and wakes the computer, the browser answering again after the wake', async () => {
    const suspended = await worker.post('/computer/suspend', {});
    expect(suspended).toEqual({ status: 200, body: { computerId: 'api-spec', suspended: true } });
    const refused = await fail('observe', { fence: 3 });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'COMPUTER_UNAVAILABLE']);

    const woken = await worker.post('/computer/wake', {});
    expect(woken).toEqual({ status: 200, body: { computerId: 'api-spec', suspended: false } });
    expect(await worker.screens.cdp(0).answers()).toBe(true);
    const seen = await act('observe', { fence: 3 });
    expect(seen.status).toBe(200);
    expect(seen.body.observation).toContain('clicks: 3');
  });

  it("types a person's text, Chinese included, into the focused tab while they hold the screen, and only then", async () => {
    expect((await act('navigate', { fence: 3, url: `${site.url}/type` })).status).toBe(200);
    const text = `${CHINESE}\n第二行 ok`;
    const beforeTakeover = (await worker.post('/screens/type', { slot: 0, fence: 2, text })) as Failure;
    expect([beforeTakeover.status, beforeTakeover.body.error.code]).toEqual([409, 'STALE_FENCE']);
    await worker.post('/screens/control', { slot: 0, holder: 'user', fence: 5 });
    const olderHold = (await worker.post('/screens/type', { slot: 0, fence: 4, text })) as Failure;
    expect([olderHold.status, olderHold.body.error.code]).toEqual([409, 'STALE_FENCE']);

    expect(await worker.post('/screens/type', { slot: 0, fence: 5, text })).toEqual({
      status: 200,
      body: { slot: 0, via: 'browser' },
    });

    await worker.post('/screens/control', { slot: 0, holder: 'agent', fence: 6 });
    const value = await act('eval', { fence: 3, expression: "document.getElementById('t').value" });
    expect(value.body.result).toEqual({ value: text });
  });

  it('stops a screen; browser calls then say it is not running', async () => {
    const stopped = (await worker.post('/screens/stop', { slot: 0 })) as Answer<ScreenInfo>;
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ slot: 0, state: 'stopped', executionFence: 3 });
    const refused = await fail('observe', { fence: 3 });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'SCREEN_NOT_RUNNING']);
  });
});
