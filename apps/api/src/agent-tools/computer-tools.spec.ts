import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Runtime, SERVICE_LIMITS, type ToolContext, type ToolDefinition, type ToolOutcome } from '@lazyboy/agent';
import { workerRoutes, type ContentPart, type WorkerRequest, type WorkerResponse, type WorkerRoute } from '@lazyboy/contracts';
import { findFreePort, ManagedProcess, repoRoot } from '@lazyboy/localstack';
import { findFreeDisplayBase } from '@lazyboy/desktop';
import { createModelClient, ScriptedModelServer, scriptedBackend, type ReceivedRequest, type Turn } from '@lazyboy/model';
import { startTestSite, type TestSite } from '../../../../libs/desktop/src/testing/test-site.js';
import { LocalBrowser } from '../../../cli/src/tools/local-browser.js';
import { cliTools } from '../../../cli/src/tools/cli-tools.js';
import { WorkerClient } from '../computers/worker-client.js';
import { computerTools, ScreenLeaseLostError, TAKEOVER_PROMPT, type ScreenProvider } from './index.js';
import { sleep } from '../../../../test/support/index.js';

// The computer tools against a real worker process (apps/worker/dist/main.js) with one real screen:
// Xvfb, Chromium, the sandboxed shell, the home's files. One desktop boot for the whole suite.

const COMPUTER_ID = 'agent-tools-spec';

const PAGE = `<!doctype html>
<html><head><title>Agent tools</title></head>
<body>
  <h1 id="status">Not pressed yet</h1>
  <button onclick="document.getElementById('status').textContent = 'Pressed!'">Press me</button>
</body></html>`;

let worker: ManagedProcess | undefined;
let client: WorkerClient;
let root: string;
let homeDir: string;
let site: TestSite | undefined;
let siteUrl: string;
let model: ScriptedModelServer;
let fence = 1;
const lost: ScreenLeaseLostError[] = [];
const provider: ScreenProvider = {
  get: async () => ({ computerId: COMPUTER_ID, screenId: 'screen-0', slot: 0, fence, worker: client }),
  onLeaseLost: (error) => lost.push(error),
};
const tools = computerTools(provider, { outputPollMs: 200 });

interface TestContext extends ToolContext {
  jobs: Promise<ToolOutcome>[];
}
let calls = 0;
function context(): TestContext {
  const jobs: Promise<ToolOutcome>[] = [];
  return {
    signal: new AbortController().signal,
    callId: `call-${++calls}`,
    background: (_description, work) => {
      jobs.push(work);
      return `job-${jobs.length}`;
    },
    jobs,
  };
}

/** Parses the arguments as the runtime would, then runs the tool. */
async function use(name: string, args: Record<string, unknown>, ctx: TestContext = context()): Promise<ToolOutcome> {
  const tool: ToolDefinition = tools.find((t) => t.name === name)!;
  return tool.execute(tool.schema.parse(args), ctx);
}

function textOf(content: string | ContentPart[]): string {
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

/** A refusal by its code alone (the message after it is the transport's own words). */
function codeOnly(text: string): string {
  return /^[A-Z_]+: /.test(text) ? text.split(':')[0]! : text;
}

/** The text of the latest tool result the model was sent (images, if any, left out). */
function lastToolText(r: ReceivedRequest): string {
  const content = r.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '';
  return typeof content === 'string' ? content : textOf(content as ContentPart[]);
}

function images(content: string | ContentPart[]): ContentPart[] {
  return typeof content === 'string' ? [] : content.filter((p) => p.type === 'image');
}

async function workerPost<R extends WorkerRoute>(route: R, body: WorkerRequest<R>): Promise<WorkerResponse<R>> {
  return client.call(route, body);
}

/** `./lazyboy test` builds the worker before Jest starts; this suite runs what is built. */
function requireBuiltWorker(): void {
  if (!existsSync(path.join(repoRoot, 'apps/worker/dist/main.js'))) {
    throw new Error('apps/worker is not built: run ./lazyboy test (or npx tsc -b apps/worker) first');
  }
}

/**
 * A display base for the worker's one screen, in this Jest worker's own range (offset 800; the desktop,
 * worker and computers suites use lower offsets), so that parallel suites never race for a number.
 */
function pickDisplayBase(): number {
  return findFreeDisplayBase(1, 1_000 + Number(process.env['JEST_WORKER_ID'] ?? 0) * 1_000 + 800);
}

async function waitForHealth(base: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (!worker?.running) throw new Error('the worker exited during start-up');
    if (Date.now() > deadline) throw new Error('the worker did not answer /healthz');
    await sleep(200);
  }
}

/** Where the worker keeps cookies and shell logs (apps/worker desktop-paths.ts): outside the home. */
function workerRuntimeDir(): string {
  const key = createHash('sha256').update(homeDir).digest('hex').slice(0, 10);
  return path.join(os.tmpdir(), `lazyboy-computer-${COMPUTER_ID}-${key}`);
}

/** Processes of this suite's computer: by the desktop's environment marker or the computer user's uid. */
function computerProcesses(): number[] {
  const runtimeDir = workerRuntimeDir();
  let uid: number | undefined;
  try {
    uid = Number(execFileSync('id', ['-u', `lazyboy-${COMPUTER_ID}`], { encoding: 'utf8' }).trim());
  } catch {
    uid = undefined;
  }
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const owner = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      const zombie = /^State:\s+Z/m.test(status);
      if (!zombie && (environ.includes(`LAZYBOY_DESKTOP_RUNTIME=${runtimeDir}\0`) || owner === uid)) found.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

beforeAll(async () => {
  requireBuiltWorker();
  // 0755 all the way down: the computer's shell runs as its own user and must reach its home.
  root = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-agent-tools-'));
  chmodSync(root, 0o755);
  homeDir = path.join(root, 'home');

  site = await startTestSite((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  siteUrl = site.url;
  model = await ScriptedModelServer.start();

  const port = await findFreePort();
  const token = randomBytes(24).toString('hex');
  worker = new ManagedProcess({
    name: 'worker',
    command: process.execPath,
    args: [path.join(repoRoot, 'apps/worker/dist/main.js')],
    cwd: root,
    env: {
      ...process.env,
      LAZYBOY_CONTROL_TOKEN: token,
      LAZYBOY_WORKER_HOST: '127.0.0.1',
      LAZYBOY_WORKER_PORT: String(port),
      LAZYBOY_COMPUTER_ID: COMPUTER_ID,
      LAZYBOY_COMPUTER_HOME: homeDir,
      TEAM_SCREEN_LIMIT: '1',
      LAZYBOY_DISPLAY_BASE: String(pickDisplayBase()),
    },
    logFile: path.join(root, 'worker.log'),
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base, 30_000);
  client = new WorkerClient({ baseUrl: base, token });
  await client.call(workerRoutes.ensureScreen, { slot: 0, profileKey: 't', fence: 1 }, { timeoutMs: 90_000 });
}, 240_000);

afterAll(async () => {
  await worker?.stop(20_000);
  await model?.close();
  await site?.close();
  if (!root) return;
  // Whatever the worker left behind fails the suite, and is killed so that it does not outlive it.
  const left = computerProcesses();
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(root, { recursive: true, force: true });
  // The worker leaves its runtime directories behind when it stops.
  for (const dir of [workerRuntimeDir(), `${workerRuntimeDir()}-shell`]) rmSync(dir, { recursive: true, force: true });
  expect(worker?.running).toBe(false);
  expect(left).toEqual([]);
}, 60_000);

it("finds the computer's processes while it runs (so the check after the suite can fail)", () => {
  expect(computerProcesses().length).toBeGreaterThan(2);
});

describe('browser', () => {
  let button = 0;

  it('opens a page as numbered elements with a screenshot, and sends no screenshot when nothing changed', async () => {
    const opened = await use('browser', { action: 'navigate', url: siteUrl });
    expect(opened.isError).toBeUndefined();
    const text = textOf(opened.content);
    expect(text).toContain('Not pressed yet');
    const match = /\[(\d+)\] button "Press me"/.exec(text);
    expect(match).not.toBeNull();
    button = Number(match![1]);
    expect(images(opened.content)).toEqual([expect.objectContaining({ type: 'image', mimeType: 'image/png' })]);
    expect(opened.state).toEqual({ browserUrl: siteUrl });

    const again = await use('browser', { action: 'observe' });
    expect(typeof again.content).toBe('string');
    expect(again.content).toContain(`[${button}] button "Press me"`);
  });

  it('clicks the numbered button and the observation shows the new text', async () => {
    const clicked = await use('browser', { action: 'click', element: button });
    expect(clicked.isError).toBeUndefined();
    expect(textOf(clicked.content)).toContain('Pressed!');
    expect(textOf(clicked.content)).not.toContain('Not pressed yet');
    expect(images(clicked.content)).toHaveLength(1);
  });

  it('answers a number the page does not have with the code and what to do', async () => {
    const missing = await use('browser', { action: 'click', element: 999 });
    expect(missing.isError).toBe(true);
    expect(missing.content).toMatch(/^ELEMENT_NOT_FOUND: .*observe to see them/);
  });

  it('returns the value of an expression', async () => {
    const evaluated = await use('browser', { action: 'eval', expression: 'document.title' });
    expect(textOf(evaluated.content)).toMatch(/^Value: "Agent tools"/);
  });
});

describe('one tool layer: the CLI carries the same browser tool in-process', () => {
  let localDir: string;
  let local: LocalBrowser;

  beforeAll(() => {
    localDir = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-agent-tools-cli-'));
    local = new LocalBrowser({ executablePath: '/usr/bin/chromium', profileDir: path.join(localDir, 'profile'), headed: false });
  });

  afterAll(async () => {
    await local?.close();
    if (localDir) rmSync(localDir, { recursive: true, force: true });
  });

  /** Open the page, press the button by its number, report: the same script whoever carries the browser. */
  const script = (r: ReceivedRequest): Turn => {
    const result = lastToolText(r);
    if (result.includes('Pressed!')) return { toolCalls: [{ name: 'report_done', arguments: { summary: 'Pressed.' } }] };
    const button = /\[(\d+)\] button "Press me"/.exec(result)?.[1];
    if (button) return { toolCalls: [{ name: 'browser', arguments: { action: 'click', element: Number(button) } }] };
    return { toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: siteUrl } }] };
  };

  /** Runs the script's turn over `tools`; the tool results the model read, in order. */
  async function drive(set: ToolDefinition[], turn: (r: ReceivedRequest) => Turn = script): Promise<string[]> {
    const server = await ScriptedModelServer.start(turn);
    try {
      const runtime = new Runtime({
        model: createModelClient(scriptedBackend(server)),
        tools: set,
        human: { mode: 'turn-ending' },
        systemPrompt: 'one tool layer',
        limits: SERVICE_LIMITS.general,
      });
      const { outcome } = await runtime.run({ message: 'press the button on the page' });
      expect(outcome).toMatchObject({ status: 'done', summary: 'Pressed.' });
      return server.requests.slice(1).map(lastToolText);
    } finally {
      await server.close();
    }
  }

  it('gets the same rendered results from the worker and from the local Chromium', async () => {
    const service = await drive(computerTools(provider, { outputPollMs: 200 }));
    const cli = await drive(
      cliTools({ cwd: localDir, logDir: localDir, timeoutMs: 10_000, blockUntilMs: 10_000, browser: local }).tools,
    );
    expect(service).toHaveLength(2);
    expect(service[0]).toMatch(/\[\d+\] button "Press me"/);
    expect(service[1]).toContain('Pressed!');
    // Numbers count on through a tab's documents: the worker's tab has shown pages before this one.
    const numbersAside = (results: string[]) => results.map((text) => text.replace(/\[\d+\]/g, '[n]'));
    expect(numbersAside(cli)).toEqual(numbersAside(service));
  }, 120_000);

  it('gets the same results from the shell and file tools on the computer and on the local machine', async () => {
    const turn: Turn[] = [
      { toolCalls: [{ name: 'write_file', arguments: { path: 'parity/note.txt', content: 'same on both\n' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'parity/note.txt' } }] },
      { toolCalls: [{ name: 'list_files', arguments: { path: 'parity' } }] },
      { toolCalls: [{ name: 'shell', arguments: { command: 'cat parity/note.txt; ls parity; exit 4' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'parity/missing.txt' } }] },
      { toolCalls: [{ name: 'report_done', arguments: { summary: 'Pressed.' } }] },
    ];
    const scripted = (r: ReceivedRequest): Turn => turn[r.index]!;
    const service = await drive(computerTools(provider, { outputPollMs: 200 }), scripted);
    const cli = await drive(
      cliTools({ cwd: localDir, logDir: localDir, timeoutMs: 10_000, blockUntilMs: 10_000, browser: local }).tools,
      scripted,
    );
    expect(service[0]).toBe('wrote 13 bytes to parity/note.txt');
    expect(service[3]).toBe('exit 4\nsame on both\nnote.txt\n');
    // The one difference: what a missing file's message says after the code (the worker's words, or the OS's).
    expect(cli.map(codeOnly)).toEqual(service.map(codeOnly));
  }, 60_000);

  it('refuses the number of an element that left the page the same way in both, and keeps it through other observations', async () => {
    const serviceTool = computerTools(provider).find((t) => t.name === 'browser')!;
    const cliTool = cliTools({
      cwd: localDir,
      logDir: localDir,
      timeoutMs: 10_000,
      blockUntilMs: 10_000,
      browser: local,
    }).tools.find((t) => t.name === 'browser')!;
    const answers: ToolOutcome[] = [];
    const buttonOf = (outcome: ToolOutcome) => Number(/\[(\d+)\] button "Press me"/.exec(textOf(outcome.content))?.[1]);
    for (const tool of [serviceTool, cliTool]) {
      const first = buttonOf(await tool.execute(tool.schema.parse({ action: 'navigate', url: siteUrl }), context()));
      // Another observer (a person's look, a hand-off's fresh observation) does not renumber the page ...
      const other = tool === serviceTool ? computerTools(provider).find((t) => t.name === 'browser')! : cliTool;
      expect(buttonOf(await other.execute(other.schema.parse({ action: 'observe' }), context()))).toBe(first);
      // ... a new document does: the old number is refused rather than aimed at whatever is there now.
      const reloaded = buttonOf(await tool.execute(tool.schema.parse({ action: 'navigate', url: siteUrl }), context()));
      expect(reloaded).toBeGreaterThan(first);
      answers.push(await tool.execute(tool.schema.parse({ action: 'click', element: first }), context()));
    }
    for (const answer of answers) {
      expect(answer.isError).toBe(true);
      expect(answer.content).toMatch(/^STALE_ELEMENT: element \d+ is no longer on the page .*observe again/);
    }
  }, 60_000);
});

describe('shell', () => {
  it('runs a command and returns its output', async () => {
    const hi = await use('shell', { command: 'echo hi' });
    expect(hi).toEqual({ content: 'exit 0\nhi\n', isError: false });
    const failed = await use('shell', { command: 'echo oops >&2; exit 3' });
    expect(failed.isError).toBe(true);
    expect(failed.content).toBe('exit 3\noops\n');
  });

  it('puts a command past block_until_ms in the background and reports its end', async () => {
    const ctx = context();
    const started = await use('shell', { command: 'echo early; sleep 2; echo late', block_until_ms: 300 }, ctx);
    expect(started.content).toMatch(/^still running after 0 s; it continues in the background as job-1\./);
    const number = Number(/Its number is (\d+)/.exec(textOf(started.content))?.[1]);
    expect(number).toBeGreaterThan(0);
    expect(ctx.jobs).toHaveLength(1);
    const finished = await ctx.jobs[0]!;
    expect(finished.isError).toBe(false);
    expect(finished.content).toMatch(/^exit 0\nearly\nlate\n$/);
    const after = await use('command_output', { command: number });
    expect(after).toEqual({ content: '(no new output)\n[finished: exit 0]', controlledWait: true });
  });

  it('reports a background command that fails as a failure, with its exit status', async () => {
    const ctx = context();
    const started = await use('shell', { command: 'sleep 1; echo broken >&2; exit 3', block_until_ms: 200 }, ctx);
    expect(started.content).toMatch(/continues in the background as job-1\. .* Its number is \d+: command_output/);
    const finished = await ctx.jobs[0]!;
    expect(finished).toEqual({ content: 'exit 3\nbroken\n', isError: true });
  });
});

describe('files', () => {
  it('writes a file, reads it back and lists it', async () => {
    const written = await use('write_file', { path: 'notes/today.txt', content: 'hello from the agent\n' });
    expect(written.isError).toBeUndefined();
    expect(written.content).toMatch(/^wrote 21 bytes to /);
    expect(await use('read_file', { path: 'notes/today.txt' })).toEqual({ content: 'hello from the agent\n' });
    expect((await use('list_files', { path: 'notes' })).content).toMatch(/today\.txt \(21 bytes\)/);
    // The shell sees the same home.
    expect((await use('shell', { command: 'cat notes/today.txt' })).content).toBe('exit 0\nhello from the agent\n');
  });

  it('refuses paths outside the home and names missing files', async () => {
    const outside = await use('read_file', { path: '../../../etc/passwd' });
    expect(outside.isError).toBe(true);
    expect(outside.content).toMatch(/^PATH_OUTSIDE_HOME: /);
    const missing = await use('read_file', { path: 'nope.txt' });
    expect(missing.isError).toBe(true);
    expect(missing.content).toMatch(/^FILE_NOT_FOUND: /);
  });
});

describe('desktop and wait', () => {
  it('observes the desktop outside the browser', async () => {
    const observed = await use('computer_observe', {});
    expect(observed.isError).toBeUndefined();
    expect(typeof observed.content).toBe('string');
    expect((observed.content as string).length).toBeGreaterThan(0);
  });

  it('waits as a controlled wait', async () => {
    const waited = await use('wait', { seconds: 0.3 });
    expect(waited.controlledWait).toBe(true);
    expect(waited.content).toMatch(/^waited 0\.[3-9] s$/);
  });
});

describe('when a person holds the screen or the lease is lost', () => {
  it('parks the run on a takeover question while a person holds the screen', async () => {
    await workerPost(workerRoutes.setControl, { slot: 0, holder: 'user', fence: 1 });
    const ctx = context();
    const refused = await use('browser', { action: 'scroll', direction: 'down' }, ctx);
    expect(refused.directive).toEqual({
      kind: 'park',
      question: { callId: ctx.callId, tool: 'browser', kind: 'takeover', prompt: TAKEOVER_PROMPT },
    });
    // Looking is still allowed, and says who has the screen.
    const looked = await use('browser', { action: 'observe' });
    expect(textOf(looked.content)).toContain('A person is using this screen right now');

    // Through the runtime: the turn ends waiting for the takeover to end.
    model.setScript([{ toolCalls: [{ name: 'shell', arguments: { command: 'echo hi' } }] }, { text: 'done' }]);
    const runtime = new Runtime({
      model: createModelClient(scriptedBackend(model)),
      tools,
      human: { mode: 'turn-ending' },
      systemPrompt: 'You use a computer.',
      limits: SERVICE_LIMITS.general,
    });
    const { outcome, checkpoint } = await runtime.run({ message: 'Run echo hi in the shell on the computer, please.' });
    expect(outcome).toMatchObject({ status: 'waiting_takeover', question: { tool: 'shell', kind: 'takeover' } });
    expect(checkpoint.pendingQuestion).toMatchObject({ kind: 'takeover', prompt: TAKEOVER_PROMPT });

    await workerPost(workerRoutes.setControl, { slot: 0, holder: 'agent', fence: 2 });
    expect((await use('shell', { command: 'echo back' })).content).toBe('exit 0\nback\n');
  });

  it('stops the run when another holder takes the screen with a newer fence', async () => {
    await workerPost(workerRoutes.ensureScreen, { slot: 0, profileKey: 't', fence: 2 });
    const refused = await use('browser', { action: 'observe' });
    expect(refused.directive).toEqual({ kind: 'blocked', reason: 'screen lease lost' });
    expect(refused.isError).toBe(true);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toBeInstanceOf(ScreenLeaseLostError);
    expect(lost[0]!.fence).toBe(1);

    model.setScript([{ toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] }, { text: 'done' }]);
    const runtime = new Runtime({
      model: createModelClient(scriptedBackend(model)),
      tools,
      human: { mode: 'turn-ending' },
      systemPrompt: 'You use a computer.',
      limits: SERVICE_LIMITS.general,
    });
    const { outcome } = await runtime.run({ message: 'Write x into x.txt on the computer.' });
    expect(outcome).toMatchObject({ status: 'blocked', reason: 'screen lease lost' });
    expect(lost).toHaveLength(2);
    // Nothing was written with the old fence.
    expect(existsSync(path.join(homeDir, 'x.txt'))).toBe(false);

    // The newer holder carries on.
    fence = 2;
    expect((await use('read_file', { path: 'notes/today.txt' })).content).toBe('hello from the agent\n');
  });
});
