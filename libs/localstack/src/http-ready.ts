import type { ManagedProcess } from './managed-process.js';
import { tail } from './postgres.js';
import { waitForPort } from './ports.js';

/**
 * Resolves once GET `url` answers `expectStatus`; fails early, with the log's tail, if `proc` exits.
 */
export async function waitForHttp(
  proc: ManagedProcess | undefined,
  url: string,
  log: string,
  timeoutMs = 60_000,
  expectStatus = 200,
): Promise<void> {
  const { hostname, port } = new URL(url);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc && !proc.running) throw new Error(`${proc.name} exited during start-up:\n${tail(log)}`);
    try {
      await waitForPort(Number(port), hostname.replace(/^\[|\]$/g, ''), 200);
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.status === expectStatus) return;
    } catch {
      // not answering yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer ${expectStatus} within ${timeoutMs} ms:\n${tail(log)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
