import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findFreePort, repoRoot } from '@lazyboy/localstack';
import { ScriptedModelServer } from '@lazyboy/model';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { agentScript, PRESSED, startButtonPage, type ButtonPage } from '../support/button-agent.js';
import { createAgentFromSidebar, sendMessage, signInThroughLoginPage } from '../support/web-walkthrough.js';
import { lastPersonText, lastToolText, until } from '../support/index.js';

// deploy/compose as a person on one Docker host runs it: setup.sh (the five images built and loaded, .env
// written), `docker-compose up -d`, the web app at the published port in a real Chromium, an agent asked to
// press a page's button on a computer of the worker service (the static pool driver assigns a warm worker),
// the click seen by the page's server, the answer shown; stopping the computer gives its worker back fresh.
// Docker is Debian's docker.io and docker-compose on a dockerd of the test's own, in a network namespace
// of its own (scripts/docker/test-docker.sh).

const run = promisify(execFile);

const LOOK_AROUND = 'Look around this computer';
/**
 * What an agent's shell would try to reach another computer or the worker by: its uid, every process's
 * environment (the worker's holds the pool token), the homes volume's path, and every home seen through
 * any process's root directory (the worker's and the desktop helpers' mount namespace holds the volume).
 */
const PROBE = [
  'echo "uid=$(id -u)"',
  "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -a POOL_TOKEN",
  'ls -a /var/lib/lazyboy/computer 2>&1',
  'cat /proc/[0-9]*/root/var/lib/lazyboy/computer/*/secret.txt /proc/[0-9]*/cwd/*/secret.txt 2>&1 | sort | uniq -c | head -5',
  'echo probe-done',
].join('; ');

/** "Look around this computer": runs PROBE and reports its output word for word. */
function lookAround(request: Parameters<ReturnType<typeof agentScript>>[0]) {
  if (!lastPersonText(request).startsWith(LOOK_AROUND)) return undefined;
  const tool = lastToolText(request);
  if (!tool) return { toolCalls: [{ name: 'shell', arguments: { command: PROBE } }] };
  return { toolCalls: [{ name: 'report_done', arguments: { summary: tool } }] };
}
const COMPOSE_FILE = path.join(repoRoot, 'deploy/compose/compose.yaml');
const PROJECT = `lazyboy-test-${randomBytes(3).toString('hex')}`;

describe('deploy/compose on a Docker host', () => {
  let dockerHost: string;
  let startedHere = false;
  let scratch: string;
  let envFile: string;
  let site: ButtonPage;
  let model: ScriptedModelServer;
  let browser: Browser;
  let webUrl: string;
  let env: NodeJS.ProcessEnv;

  const compose = async (args: string[], timeoutMs = 120_000) => {
    try {
      return await run('docker-compose', ['--project-name', PROJECT, '--file', COMPOSE_FILE, '--env-file', envFile, ...args], {
        env,
        timeout: timeoutMs,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`docker-compose ${args.join(' ')} failed:\n${stderr ?? ''}${stdout ?? ''}`, { cause: error });
    }
  };
  const envValue = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(readFileSync(envFile, 'utf8'))?.[1];

  beforeAll(async () => {
    const { stdout } = await run('bash', [path.join(repoRoot, 'scripts/docker/test-docker.sh')], { timeout: 10 * 60_000 });
    const [socket, dockerAddress, hostAddress, started] = stdout.trim().split(/\s+/);
    dockerHost = socket!;
    startedHere = started === '1';
    env = { ...process.env, DOCKER_HOST: dockerHost };
    scratch = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-compose-'));
    envFile = path.join(scratch, '.env');
    // The images as CI builds them for the chart's test too (cached by content), loaded once into this dockerd.
    await run('bash', [path.join(repoRoot, 'deploy/compose/setup.sh')], {
      env: { ...env, LAZYBOY_COMPOSE_ENV: envFile },
      timeout: 30 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    // The host's end of the link to Docker's network namespace: what the containers reach the host by.
    site = await startButtonPage(hostAddress!);
    const pressing = agentScript(() => site.url);
    model = await new ScriptedModelServer({
      host: hostAddress!,
      script: (request) => lookAround(request) ?? pressing(request),
    }).start();
    browser = await launchChromium();
    const port = await findFreePort();
    webUrl = `http://${dockerAddress!}:${port}`;
    appendFileSync(
      envFile,
      [
        `LAZYBOY_WEB_PORT=${port}`,
        `LAZYBOY_ADMIN_EMAIL=admin@compose.test`,
        `LAZYBOY_MODEL_PROVIDER=openai-chat`,
        `LAZYBOY_MODEL=${model.model}`,
        `LAZYBOY_MODEL_BASE_URL=${model.url}`,
        `LAZYBOY_COMPUTERS=2`,
        `LAZYBOY_COMPUTER_MEMORY_MB=1024`,
        // The page is on the host's end of that link, a private address.
        `LAZYBOY_EGRESS_PRIVATE_NETWORKS=allow`,
        '',
      ].join('\n'),
    );
  }, 40 * 60_000);

  afterAll(async () => {
    await browser?.close();
    if (envFile) await compose(['down', '--volumes', '--timeout', '20'], 180_000).catch((e: unknown) => console.error(e));
    await model?.close();
    await site?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    if (startedHere) await run('bash', [path.join(repoRoot, 'scripts/docker/docker-down.sh')], { timeout: 120_000 });
  }, 300_000);

  /** The containers of one service, by `docker-compose ps -q`. */
  const containers = async (service: string) => (await compose(['ps', '-q', service])).stdout.trim().split('\n').filter(Boolean);

  let person: Page;

  /** `step`, failing with the last lines of the API's and the workers' logs (what a timeout cannot say). */
  async function withLogs<T>(step: Promise<T>): Promise<T> {
    try {
      return await step;
    } catch (error) {
      const logs = await compose(['logs', '--no-color', '--tail', '40', 'api', 'worker']).then(
        (r) => r.stdout,
        (e: unknown) => String(e),
      );
      throw new Error(`${(error as Error).message}\n${logs}`, { cause: error });
    }
  }

  it('comes up: migrated, the API ready, the web app served, and two warm workers', async () => {
    await compose(['up', '--detach'], 300_000);
    await until(
      'the web app',
      async () =>
        (await fetch(`${webUrl}/api/auth/me`).then(
          (r) => r.status,
          () => 0,
        )) === 401,
      { timeoutMs: 120_000, everyMs: 500 },
    );
    expect(await containers('worker')).toHaveLength(2);
    const { stdout } = await run('docker', ['inspect', '--format', '{{.State.ExitCode}}', (await containers('migrate'))[0]!], {
      env,
    });
    expect(stdout.trim()).toBe('0');
  }, 360_000);

  it('signs the first admin in, and an agent presses the button on a computer of the worker service', async () => {
    const context = await browser.newContext({ baseURL: webUrl });
    person = await context.newPage();
    await signInThroughLoginPage(person, 'admin@compose.test', envValue('LAZYBOY_APP_TOKEN')!);
    await createAgentFromSidebar(person, 'Ada');
    await sendMessage(person, 'Press the button on the test page');
    await withLogs(
      person.locator('[data-testid="message"][data-role="assistant"]').filter({ hasText: PRESSED }).waitFor({ timeout: 120_000 }),
    );
    expect(site.clicks()).toBe(1);
    // The live screen, from the worker's container through the web server.
    await person.getByTestId('computer-toggle').click();
    await person.locator('[data-testid="computer-panel"][data-first-frame="true"]').waitFor({ timeout: 60_000 });
  }, 240_000);

  it("keeps the computer's programs out of the worker and other computers' homes on the shared volume", async () => {
    // Another computer's home, as the worker that ran it left it: a uid of its own, 0700, a secret inside.
    const secret = `home-secret-${randomBytes(8).toString('hex')}`;
    const [, other] = await containers('worker');
    await run(
      'docker',
      [
        'exec',
        other!,
        'sh',
        '-c',
        `mkdir -p /var/lib/lazyboy/computer/other-home && echo ${secret} > /var/lib/lazyboy/computer/other-home/secret.txt && ` +
          'chown -R 2000001:2000001 /var/lib/lazyboy/computer/other-home && chmod 700 /var/lib/lazyboy/computer/other-home',
      ],
      { env },
    );
    await sendMessage(person, LOOK_AROUND);
    const answer = person.locator('[data-testid="message"][data-role="assistant"]').filter({ hasText: 'probe-done' });
    await withLogs(answer.waitFor({ timeout: 120_000 }));
    const text = await answer.innerText();

    // The shell ran, as the computer's own user (not the worker's root, not the image's user)...
    const uid = Number(/uid=(\d+)/.exec(text)?.[1]);
    expect(uid).toBeGreaterThanOrEqual(2 ** 20);
    // ...and found neither the pool token nor the other home's secret, nor the volume's other entries.
    expect(text).not.toContain(envValue('LAZYBOY_POOL_TOKEN')!);
    expect(text).not.toContain('POOL_TOKEN=');
    expect(text).not.toContain(secret);
    expect(text).not.toContain('other-home');
  }, 180_000);
});
