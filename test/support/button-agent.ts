import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReceivedRequest, Turn } from '@lazyboy/model';
import { contentText, lastPersonText, lastToolText } from './model-requests.js';

// What an agent of an installed LazyBoy (the chart on the test node, the compose stack in Docker) works
// on, served from the host: the scripted model (the API's container reaches it, as it would a LAN's model
// server) and a page with a button whose click the server counts (the worker's Chromium opens it). Both
// listen on a host address the installed stack can reach (loopback is each container's own).

export interface ButtonPage {
  url: string;
  clicks(): number;
  /** The hosts (worker pods, containers) the long job has started on, in order. */
  longJobs(): string[];
  close(): Promise<void>;
}

/**
 * A page with a "Press me" button on `host`; its click fetches /clicked, which the server counts. The long
 * job's command calls /long-job?host=<its host> as it starts, so a test knows the command is running on
 * the computer, and on which one, before it pulls the computer away.
 */
export async function startButtonPage(host: string): Promise<ButtonPage> {
  let clicks = 0;
  const longJobs: string[] = [];
  const server = http.createServer((req, res) => {
    if (req.url === '/clicked') {
      clicks++;
      res.end('ok');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://page');
    if (url.pathname === '/long-job') {
      longJobs.push(url.searchParams.get('host') ?? '');
      res.end('ok');
      return;
    }
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>Button test</title><h1 id="status">Waiting</h1>
<button onclick="fetch('/clicked').then(() => { document.getElementById('status').textContent = 'Pressed!'; })">Press me</button>`);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/`,
    clicks: () => clicks,
    longJobs: () => [...longJobs],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });

export const PRESSED = 'I pressed the button: the page says Pressed!';
/** What the person asks for the long job. */
export const LONG_JOB = 'Run the long job';
/** Tells the page's server it started and where (the pod's name), then runs far past the shell tool's 30 s wait. */
const longJobCommand = (page: string) => `curl -fsS "${page}long-job?host=$(hostname)" && sleep 120`;

/**
 * The model: "Press the button" opens the page, clicks its button once and reports what the page says;
 * "Run the long job" starts a two-minute shell command and, once it has the tool's result, stops and passes
 * that on word for word (the product's own text, not the script's).
 */
export function agentScript(page: () => string): (request: ReceivedRequest) => Turn {
  return (request) => {
    const asked = lastPersonText(request);
    const tool = lastToolText(request);
    if (asked.startsWith('Press the button')) {
      if (!tool) return { toolCalls: [call('browser', { action: 'navigate', url: page() })] };
      if (tool.includes('Pressed!')) return { toolCalls: [call('report_done', { summary: PRESSED })] };
      // The page updates once its request returns: having clicked in this run, look again, not click twice.
      const since = request.messages.slice(
        request.messages.findLastIndex((m) => m.role === 'user' && contentText(m.content) === asked),
      );
      const clicked = since.some(
        (m) => m.role === 'assistant' && (m.toolCalls ?? []).some((c) => c.arguments.includes('"click"')),
      );
      if (clicked) return { toolCalls: [call('browser', { action: 'observe' })] };
      const button = /\[(\d+)\] button "Press me"/.exec(tool);
      if (button) return { toolCalls: [call('browser', { action: 'click', element: Number(button[1]) })] };
      return { toolCalls: [call('report_blocked', { reason: `unexpected page: ${tool.slice(0, 300)}` })] };
    }
    if (asked.startsWith(LONG_JOB)) {
      if (!tool) return { toolCalls: [call('shell', { command: longJobCommand(page()) })] };
      return { toolCalls: [call('report_blocked', { reason: tool })] };
    }
    return { text: `I cannot do "${asked}".` };
  };
}
