import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { childEnv } from './child-env.js';
import { ManagedProcess } from './managed-process.js';
import { tail } from './postgres.js';
import { chownTree, serviceUser } from './service-user.js';

export const REDIS_SERVER_BIN = process.env.LAZYBOY_REDIS_BIN ?? '/usr/bin/redis-server';

export interface RedisOptions {
  dataDir: string;
  port: number;
  password: string;
  logFile: string;
  /** Keep a snapshot on disk across restarts (the product); tests keep nothing. */
  persistent?: boolean;
}

export interface RunningRedis {
  process: ManagedProcess;
  port: number;
  url: string;
}

export async function startRedis(options: RedisOptions): Promise<RunningRedis> {
  const user = serviceUser('redis');
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // The password goes in a 0600 file, not on the command line where `ps` would show it.
  const configFile = path.join(options.dataDir, 'redis.conf');
  writeFileSync(
    configFile,
    [
      `port ${options.port}`,
      'bind 127.0.0.1',
      'protected-mode yes',
      `dir ${options.dataDir}`,
      `requirepass "${options.password}"`,
      'daemonize no',
      options.persistent ? 'save 300 1' : 'save ""',
      'appendonly no',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  chownTree(options.dataDir, user);
  const server = new ManagedProcess({
    name: 'redis',
    command: REDIS_SERVER_BIN,
    args: [configFile],
    cwd: options.dataDir,
    env: childEnv('redis'),
    logFile: options.logFile,
    user,
    stopSignal: 'SIGTERM',
  });
  try {
    await waitForRedis(options.port, options.password, server, options.logFile);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    process: server,
    port: options.port,
    url: `redis://:${encodeURIComponent(options.password)}@127.0.0.1:${options.port}`,
  };
}

/** True when the server answers PING after AUTH. Speaks just enough RESP for that. */
export async function pingRedis(port: number, password: string, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('+PONG')) done(true);
      else if (reply.startsWith('-')) done(false);
    });
    socket.once('connect', () => {
      const arg = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
      socket.write(`*2\r\n${arg('AUTH')}${arg(password)}*1\r\n${arg('PING')}`);
    });
  });
}

async function waitForRedis(port: number, password: string, proc: ManagedProcess, logFile: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.running) throw new Error(`redis exited during start-up:\n${tail(logFile)}`);
    if (await pingRedis(port, password)) return;
    if (Date.now() > deadline) throw new Error(`redis did not answer in ${timeoutMs} ms:\n${tail(logFile)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
