import { groupAlive, isAlive, stopProcessGroup } from '@lazyboy/localstack';
import { parseEnv, stackEnvSchema } from '@lazyboy/contracts';
import { stopComputerLeftovers } from './computer-leftovers.js';
import { stackLayout, type StackLayout } from './stack-layout.js';
import { clearStackState, readStackState, type ComponentName, type StackState } from './stack-state.js';

type Print = (line: string) => void;

const STOP_SIGNAL: Record<ComponentName, NodeJS.Signals> = {
  // Postgres's fast shutdown; everything else stops cleanly on SIGTERM.
  postgres: 'SIGINT',
  redis: 'SIGTERM',
  api: 'SIGTERM',
  worker: 'SIGTERM',
  web: 'SIGTERM',
};

/**
 * `lazyboy down`: asks a running `up` to stop, and clears whatever it left behind if it cannot — the
 * components' process groups and the computers' workers and desktops — also when no `up` runs any more.
 */
export async function down(env: Record<string, string | undefined>, print: Print = console.log): Promise<number> {
  const layout = stackLayout(parseEnv(stackEnvSchema, env));
  const state = readStackState(layout.stateFile);
  if (!state) {
    print('LazyBoy is not running.');
    await stopLeftovers(undefined, layout, print);
    return 0;
  }
  if (isAlive(state.supervisorPid)) {
    print(`stopping LazyBoy (pid ${state.supervisorPid})…`);
    process.kill(state.supervisorPid, 'SIGTERM');
    const deadline = Date.now() + 60_000;
    while (isAlive(state.supervisorPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  }
  await stopLeftovers(state, layout, print);
  clearStackState(layout.stateFile);
  print('LazyBoy stopped; data kept.');
  return 0;
}

/**
 * Stops the components of an earlier `up` that are still running (newest first), then whatever its
 * computers left: workers and desktops are in no recorded process group, so they are looked for.
 */
export async function stopLeftovers(state: StackState | undefined, layout: StackLayout, print: Print): Promise<void> {
  for (const { name, pid } of [...(state?.components ?? [])].reverse()) {
    if (!groupAlive(pid)) continue;
    print(`stopping ${name} left over from an earlier run (pid ${pid})`);
    await stopProcessGroup(pid, STOP_SIGNAL[name], 10_000);
  }
  await stopComputerLeftovers(layout, print);
}
