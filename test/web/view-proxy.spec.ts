import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { WebSocket } from 'ws';
import { signUp, type TestUser, sleep } from '../support/index.js';
import { RfbClient } from './rfb-client.js';
import { WebHarness } from './web-harness.js';

// The web server's /view proxy against a real worker: x11vnc on a real Xvfb display, through the worker's VNC socket.
// Only the person a viewer ticket was issued to, signed in, gets that screen's VNC stream, once.

const connectionId = () => randomBytes(16).toString('base64url');

/** Opens /view/<ticket> as `cookie`; resolves with the first bytes of the stream or the HTTP refusal. */
function openView(
  webUrl: string,
  ticket: string,
  cookie: string | null,
  origin?: string,
): Promise<{ status: number; firstBytes: string }> {
  return new Promise((resolve, reject) => {
    const url = `${webUrl.replace('http', 'ws')}/view/${ticket}?c=${connectionId()}`;
    const socket = new WebSocket(url, { headers: cookie ? { cookie } : {}, ...(origin ? { origin } : {}) });
    socket.once('message', (data: Buffer) => {
      resolve({ status: 101, firstBytes: data.toString('latin1') });
      socket.close();
    });
    socket.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, firstBytes: '' });
      socket.terminate();
    });
    socket.once('error', reject);
  });
}

/** The X cookie file of a display: the one its Xvfb was started with (-auth). */
function xauthorityOf(display: number): string {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    if (path.basename(args[0] ?? '') === 'Xvfb' && args[1] === `:${display}`) return args[args.indexOf('-auth') + 1] ?? '';
  }
  throw new Error(`no Xvfb serves :${display}`);
}

const cookies = new Map<number, string>();

/**
 * Where the pointer is on an X display, as "x,y". Asynchronous: the API under test runs in this process, and
 * a blocking call polled every 100 ms starves it on a busy machine (its control checks then time out).
 */
async function pointerAt(display: number): Promise<string> {
  const xauthority = cookies.get(display) ?? xauthorityOf(display);
  cookies.set(display, xauthority);
  const env = { ...process.env, DISPLAY: `:${display}`, XAUTHORITY: xauthority };
  const out = (await promisify(execFile)('xdotool', ['getmouselocation'], { env })).stdout;
  const match = /x:(\d+) y:(\d+)/.exec(out);
  return match ? `${match[1]},${match[2]}` : out;
}

describe('the /view proxy of the web server', () => {
  const harness = new WebHarness();
  let owner: TestUser;
  let agentId: string;

  const ticket = async (user: TestUser, agent: string) => {
    const res = await harness.service.raw(user, 'POST', `/api/agents/${agent}/computer/viewer-ticket`, { mode: 'view' });
    return { status: res.status, ticket: res.ok ? ((await res.json()) as { ticket: string }).ticket : '' };
  };

  beforeAll(async () => {
    await harness.start(() => ({ text: 'unused' }));
    owner = await signUp(harness.service.app.url);
    agentId = (
      await harness.service.call<{ id: string }>(owner, 'POST', `/api/workspaces/${owner.workspaceId}/agents`, { name: 'Viewer' })
    ).id;
    await harness.service.call(owner, 'POST', `/api/agents/${agentId}/computer/boot`);
  }, 180_000);

  afterAll(async () => {
    await harness.stop();
  }, 120_000);

  it("carries the screen's VNC stream to the signed-in person the ticket is for, once", async () => {
    const { ticket: issued } = await ticket(owner, agentId);
    const first = await openView(harness.webUrl, issued, owner.cookie);
    expect(first).toEqual({ status: 101, firstBytes: 'RFB 003.008\n' });
    // Single use: the same URL again is refused.
    expect((await openView(harness.webUrl, issued, owner.cookie)).status).toBe(403);
  });

  it('refuses a view without a sign-in, or with the ticket of someone else', async () => {
    expect((await openView(harness.webUrl, (await ticket(owner, agentId)).ticket, null)).status).toBe(401);
    const stranger = await signUp(harness.service.app.url);
    expect((await openView(harness.webUrl, (await ticket(owner, agentId)).ticket, stranger.cookie)).status).toBe(403);
    // Nor can the stranger get a ticket for the owner's agent: another workspace's agent does not exist for them.
    expect((await ticket(stranger, agentId)).status).toBe(404);
  });

  it("refuses another site's page, though the person is signed in and the ticket good", async () => {
    const { ticket: issued } = await ticket(owner, agentId);
    const port = Number(new URL(harness.webUrl).port);
    // Another port of the same host: the same site for the cookie, not the same origin.
    expect((await openView(harness.webUrl, issued, owner.cookie, `http://127.0.0.1:${port + 1}`)).status).toBe(403);
    // The ticket was not used up: the page of this site still opens it.
    expect((await openView(harness.webUrl, issued, owner.cookie, harness.webUrl)).status).toBe(101);
    const res = await fetch(`${harness.webUrl}/view/${connectionId()}/watch`, {
      method: 'POST',
      headers: { cookie: owner.cookie, origin: 'http://evil.example' },
    });
    expect(res.status).toBe(403);
  });

  it('refuses to switch a connection to control without a control ticket', async () => {
    const id = connectionId();
    const view = await ticket(owner, agentId);
    const client = await RfbClient.connect(`${harness.webUrl.replace('http', 'ws')}/view/${view.ticket}?c=${id}`, owner.cookie);
    try {
      const switchTo = (connection: string, withTicket: string) =>
        fetch(`${harness.webUrl}/view/${connection}/control`, {
          method: 'POST',
          headers: { cookie: owner.cookie, 'content-type': 'application/json' },
          body: JSON.stringify({ ticket: withTicket }),
        });
      // A ticket to watch is no ticket to drive; a made-up one is refused by the API; neither signs the page out.
      const watchTicket = await switchTo(id, (await ticket(owner, agentId)).ticket);
      expect([watchTicket.status, ((await watchTicket.json()) as { error: { message: string } }).error.message]).toEqual([
        403,
        'take control of the screen first',
      ]);
      expect((await switchTo(id, 'x'.repeat(40))).status).toBe(403);
      // Another connection id is nobody's.
      const unknown = await switchTo(connectionId(), 'x'.repeat(40));
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    } finally {
      client.close();
    }
  });

  it('stops the input of a driving connection once its control ends elsewhere, though the page never asks', async () => {
    // Typing for a person (what VNC cannot type) needs the hold too.
    const typeFor = async () =>
      (await harness.service.raw(owner, 'POST', `/api/agents/${agentId}/computer/type`, { text: '你好' })).status;
    expect(await typeFor()).toBe(403);
    await harness.service.call(owner, 'POST', `/api/agents/${agentId}/computer/takeover`);
    const issued = await harness.service.call<{ ticket: string }>(
      owner,
      'POST',
      `/api/agents/${agentId}/computer/viewer-ticket`,
      {
        mode: 'control',
      },
    );
    const { screen } = await harness.service.call<{ screen: { display: number } }>(
      owner,
      'GET',
      `/api/agents/${agentId}/computer`,
    );
    const url = `${harness.webUrl.replace('http', 'ws')}/view/${issued.ticket}?c=${connectionId()}`;
    const client = await RfbClient.connect(url, owner.cookie);
    try {
      const landed = async (x: number, y: number) => {
        client.movePointer(x, y);
        const deadline = Date.now() + 1_500;
        while (Date.now() < deadline) {
          if ((await pointerAt(screen.display)) === `${x},${y}`) return true;
          await sleep(100);
        }
        return false;
      };
      expect(await landed(101, 102)).toBe(true);
      // Handed back through the API (another tab, the lease lapsing, an admin): this connection sends no /watch.
      await harness.service.call(owner, 'POST', `/api/agents/${agentId}/computer/release`);
      expect(await typeFor()).toBe(403);
      // The proxy checks every second: the input is shut within a few, not at the end of the 30 s control window
      // (10 s here: on a CI machine busy with other desktops an API answer can take a few seconds).
      const released = Date.now();
      let x = 200;
      while (Date.now() - released < 10_000 && (await landed(x, 200))) x++;
      expect(await landed(300, 301)).toBe(false);
    } finally {
      client.close();
    }
  }, 60_000);
});
