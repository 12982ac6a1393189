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
  close(): Promise<void>;
}

/** A page with a "Press me" button on `host`; its click fetches /clicked, which the server counts. */
export async function startButtonPage(host: string): Promise<ButtonPage> {
  let clicks = 0;
  const server = http.createServer((req, res) => {
    if (req.url === '/clicked') {
      clicks++;
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });

export const PRESSED = 'I pressed the button: the page says Pressed!';

/** The model: "Press the button" opens the page, clicks its button once and reports what the page says. */
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
    return { text: `I cannot do "${asked}".` };
  };
}
