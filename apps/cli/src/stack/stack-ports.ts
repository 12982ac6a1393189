import { isPortFree, findFreePort } from '@lazyboy/localstack';
import type { StackEnv } from '@lazyboy/contracts';
import type { StackPorts } from './stack-state.js';

export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
}

/**
 * Ports for this start. A configured port must be free; 0 means "any free port", preferring the one
 * used last time (kept in stack.json) so that URLs stay stable across restarts.
 */
export async function resolvePorts(env: StackEnv, previous: StackPorts | undefined): Promise<StackPorts> {
  const pick = async (name: keyof StackPorts, configured: number, variable: string, host = '127.0.0.1'): Promise<number> => {
    if (configured !== 0) {
      if (!(await isPortFree(configured, host))) {
        throw new PortInUseError(`port ${configured} (${name}) is in use: stop what holds it or set ${variable}`);
      }
      return configured;
    }
    const last = previous?.[name];
    if (last && (await isPortFree(last, host))) return last;
    return findFreePort(host);
  };
  return {
    postgres: await pick('postgres', env.LAZYBOY_PG_PORT, 'LAZYBOY_PG_PORT'),
    redis: await pick('redis', env.LAZYBOY_REDIS_PORT, 'LAZYBOY_REDIS_PORT'),
    api: await pick('api', env.LAZYBOY_API_PORT, 'LAZYBOY_API_PORT'),
    web: await pick('web', env.LAZYBOY_WEB_PORT, 'LAZYBOY_WEB_PORT', env.LAZYBOY_HOST),
  };
}
