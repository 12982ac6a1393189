import { existsSync } from 'node:fs';
import { groupAlive, isAlive, pingRedis, waitForPort } from '@lazyboy/localstack';
import { parseEnv, stackEnvSchema } from '@lazyboy/contracts';
import { stackLayout } from './stack-layout.js';
import { loadOrCreateSecrets } from './stack-secrets.js';
import { readStackState, type ComponentName } from './stack-state.js';

type Print = (line: string) => void;

/** Exit status of `status` when nothing runs, as `systemctl status` uses. */
export const NOT_RUNNING = 3;

/** `lazyboy status`: each component's process and whether it answers. Exit 0 only when all do. */
export async function status(env: Record<string, string | undefined>, print: Print = console.log): Promise<number> {
  const layout = stackLayout(parseEnv(stackEnvSchema, env));
  const state = readStackState(layout.stateFile);
  if (!state || (!isAlive(state.supervisorPid) && !state.components.some((c) => groupAlive(c.pid)))) {
    print('LazyBoy is not running.');
    return NOT_RUNNING;
  }
  const secrets = existsSync(layout.secretsFile) ? loadOrCreateSecrets(layout.secretsFile, {}) : undefined;
  const probes: Record<ComponentName, () => Promise<string>> = {
    postgres: async () => await waitForPort(state.ports.postgres, '127.0.0.1', 1_000).then(() => 'accepting connections'),
    redis: async () => ((await pingRedis(state.ports.redis, secrets?.redisPassword ?? '')) ? 'answers PING' : 'no answer'),
    api: () => httpProbe(`http://127.0.0.1:${state.ports.api}/readyz`),
    // Only an older `up` started a worker of its own; it is stopped by the next `up` or `down`.
    worker: async () => 'left over from an older version; run `lazyboy down`',
    web: () => httpProbe(`http://127.0.0.1:${state.ports.web}/healthz`),
  };
  print(
    `LazyBoy ${isAlive(state.supervisorPid) ? 'running' : 'supervisor gone'} (pid ${state.supervisorPid}, since ${state.startedAt})`,
  );
  let healthy = isAlive(state.supervisorPid);
  for (const { name, pid } of state.components) {
    const alive = groupAlive(pid);
    const health = alive ? await probes[name]().catch((error: Error) => `not answering (${error.message})`) : 'stopped';
    if (!alive || !/^(accepting|answers|200)/.test(health)) healthy = false;
    const port = name === 'worker' ? '-' : String(state.ports[name]);
    print(`  ${name.padEnd(8)} pid ${String(pid).padEnd(8)} port ${port.padEnd(6)} ${health}`);
  }
  return healthy ? 0 : 1;
}

async function httpProbe(url: string): Promise<string> {
  const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
  const body = await res.text();
  return `${res.status} ${body.length > 120 ? `${body.slice(0, 117)}…` : body}`;
}
