import { describe, expect, it } from '@jest/globals';
import {
  ConfigError,
  apiEnvSchema,
  parseEnv,
  poolWorkerEnvSchema,
  stackEnvSchema,
  webEnvSchema,
  workerEnvSchema,
} from './config.js';

const required = {
  DATABASE_URL: 'postgresql://u:p@127.0.0.1:5432/db',
  REDIS_URL: 'redis://127.0.0.1:6379',
  LAZYBOY_VAULT_KEY: 'v'.repeat(32),
  LAZYBOY_INTERNAL_SECRET: 'i'.repeat(32),
};

describe('environment schemas', () => {
  it('fills defaults for the API on loopback, where no token is required', () => {
    const env = parseEnv(apiEnvSchema, required);
    expect(env).toMatchObject({
      LAZYBOY_API_HOST: '127.0.0.1',
      LAZYBOY_API_PORT: 3100,
      LAZYBOY_ADMIN_EMAIL: 'admin@lazyboy.local',
      LAZYBOY_POOL_DRIVER: 'local',
      TEAM_SCREEN_LIMIT: 8,
      LAZYBOY_DISPLAY_BASE_FROM: 0,
      LAZYBOY_ALLOW_LOCAL_MODEL_SERVERS: false,
      LAZYBOY_MODEL_BLOCKED_NETWORKS: [],
    });
  });

  it('reads the model endpoint defaults: local model servers and the networks always refused', () => {
    const env = parseEnv(apiEnvSchema, {
      ...required,
      LAZYBOY_ALLOW_LOCAL_MODEL_SERVERS: 'true',
      LAZYBOY_MODEL_BLOCKED_NETWORKS: ' 10.96.0.0/12, fd00:10::/64 ,,',
    });
    expect(env.LAZYBOY_ALLOW_LOCAL_MODEL_SERVERS).toBe(true);
    expect(env.LAZYBOY_MODEL_BLOCKED_NETWORKS).toEqual(['10.96.0.0/12', 'fd00:10::/64']);
  });

  it('refuses to bind a non-loopback address with a short token', () => {
    const exposed = { ...required, LAZYBOY_API_HOST: '0.0.0.0' };
    expect(() => parseEnv(apiEnvSchema, { ...exposed, LAZYBOY_APP_TOKEN: 'short' })).toThrow(
      /LAZYBOY_APP_TOKEN: must be at least 32/,
    );
    expect(() => parseEnv(apiEnvSchema, exposed)).toThrow(ConfigError);
    expect(parseEnv(apiEnvSchema, { ...exposed, LAZYBOY_APP_TOKEN: 'x'.repeat(32) }).LAZYBOY_API_HOST).toBe('0.0.0.0');
  });

  it('names every bad variable at once', () => {
    expect(() => parseEnv(apiEnvSchema, { REDIS_URL: 'not a url', LAZYBOY_API_PORT: '70000' })).toThrow(
      /DATABASE_URL[\s\S]*REDIS_URL[\s\S]*LAZYBOY_API_PORT|DATABASE_URL[\s\S]*LAZYBOY_API_PORT[\s\S]*REDIS_URL/,
    );
  });

  it('requires a long control token for a worker', () => {
    expect(() => parseEnv(workerEnvSchema, { LAZYBOY_CONTROL_TOKEN: 'dev-token' })).toThrow(/LAZYBOY_CONTROL_TOKEN/);
    expect(parseEnv(workerEnvSchema, { LAZYBOY_CONTROL_TOKEN: 'k'.repeat(40) })).toMatchObject({
      LAZYBOY_WORKER_PORT: 3102,
      LAZYBOY_DISPLAY_BASE: 0,
    });
    expect(() => parseEnv(workerEnvSchema, { LAZYBOY_CONTROL_TOKEN: 'k'.repeat(40), LAZYBOY_DISPLAY_BASE: '-1' })).toThrow(
      /LAZYBOY_DISPLAY_BASE/,
    );
  });

  it('reads ports of the local stack, 0 meaning "pick one"', () => {
    const env = parseEnv(stackEnvSchema, { LAZYBOY_WEB_PORT: '0' });
    expect(env).toMatchObject({ LAZYBOY_DATA_DIR: './data', LAZYBOY_WEB_PORT: 0, LAZYBOY_PG_PORT: 0, LAZYBOY_API_PORT: 3100 });
  });

  it('refuses a short admin token for a stack whose web app binds beyond loopback, and keeps a generated one allowed', () => {
    const short = { LAZYBOY_APP_TOKEN: 'hunter2' };
    expect(() => parseEnv(stackEnvSchema, { ...short, LAZYBOY_HOST: '0.0.0.0' })).toThrow(/LAZYBOY_APP_TOKEN.*at least 32/);
    expect(() => parseEnv(stackEnvSchema, { ...short, LAZYBOY_HOST: '192.168.1.20' })).toThrow(/LAZYBOY_APP_TOKEN/);
    expect(parseEnv(stackEnvSchema, { ...short, LAZYBOY_HOST: '127.0.0.1' }).LAZYBOY_APP_TOKEN).toBe('hunter2');
    expect(parseEnv(stackEnvSchema, { LAZYBOY_HOST: '0.0.0.0', LAZYBOY_APP_TOKEN: '' }).LAZYBOY_HOST).toBe('0.0.0.0');
    expect(parseEnv(stackEnvSchema, { LAZYBOY_HOST: '0.0.0.0', LAZYBOY_APP_TOKEN: 't'.repeat(32) }).LAZYBOY_HOST).toBe('0.0.0.0');
  });

  it('reads the trusted proxies as addresses and CIDR blocks, none by default, and refuses anything else', () => {
    expect(parseEnv(apiEnvSchema, required).LAZYBOY_TRUSTED_PROXIES).toEqual([]);
    const web = { LAZYBOY_INTERNAL_SECRET: 'i'.repeat(32) };
    expect(parseEnv(webEnvSchema, { ...web, LAZYBOY_TRUSTED_PROXIES: ' 127.0.0.1, 10.0.0.0/8,::1 ,fd00::/8,' })).toMatchObject({
      LAZYBOY_TRUSTED_PROXIES: [
        { network: '127.0.0.1', prefix: 32, family: 'ipv4' },
        { network: '10.0.0.0', prefix: 8, family: 'ipv4' },
        { network: '::1', prefix: 128, family: 'ipv6' },
        { network: 'fd00::', prefix: 8, family: 'ipv6' },
      ],
    });
    for (const bad of ['localhost', '10.0.0.0/33', '300.1.1.1', '127.0.0.1 10.0.0.1', '*']) {
      expect(() => parseEnv(webEnvSchema, { ...web, LAZYBOY_TRUSTED_PROXIES: bad })).toThrow(/LAZYBOY_TRUSTED_PROXIES/);
    }
    expect(() => parseEnv(stackEnvSchema, { LAZYBOY_TRUSTED_PROXIES: 'proxy.lan' })).toThrow(/LAZYBOY_TRUSTED_PROXIES/);
  });

  it("keeps an account's cool-down bounded and its failures remembered across the longest wait", () => {
    expect(parseEnv(apiEnvSchema, required)).toMatchObject({
      LAZYBOY_ACCOUNT_LOGIN_FAILURES: 10,
      LAZYBOY_ACCOUNT_COOLDOWN_SECONDS: 30,
      LAZYBOY_ACCOUNT_COOLDOWN_MAX_SECONDS: 900,
      LAZYBOY_ACCOUNT_FAILURE_WINDOW_SECONDS: 3600,
    });
    expect(() =>
      parseEnv(apiEnvSchema, { ...required, LAZYBOY_ACCOUNT_COOLDOWN_SECONDS: '60', LAZYBOY_ACCOUNT_COOLDOWN_MAX_SECONDS: '30' }),
    ).toThrow(/LAZYBOY_ACCOUNT_COOLDOWN_MAX_SECONDS/);
    expect(() => parseEnv(apiEnvSchema, { ...required, LAZYBOY_ACCOUNT_FAILURE_WINDOW_SECONDS: '900' })).toThrow(
      /LAZYBOY_ACCOUNT_FAILURE_WINDOW_SECONDS/,
    );
  });

  describe('the static pool', () => {
    const poolToken = 't'.repeat(32);
    const staticEnv = { ...required, LAZYBOY_POOL_DRIVER: 'static', LAZYBOY_POOL_TOKEN: poolToken };

    it('reads LAZYBOY_STATIC_WORKERS: names, IPv4 and bracketed IPv6 addresses, each with its port', () => {
      const env = parseEnv(apiEnvSchema, {
        ...staticEnv,
        LAZYBOY_STATIC_WORKERS: ' worker:3102, Lazyboy_Worker.internal:3102 ,10.0.0.5:4000,[fd00::2]:3102',
      });
      expect(env.LAZYBOY_POOL_DRIVER).toBe('static');
      expect(env.LAZYBOY_STATIC_WORKERS).toEqual([
        { host: 'worker', port: 3102 },
        { host: 'lazyboy_worker.internal', port: 3102 },
        { host: '10.0.0.5', port: 4000 },
        { host: 'fd00::2', port: 3102 },
      ]);
      expect(parseEnv(apiEnvSchema, { ...required, LAZYBOY_STATIC_WORKERS: '' }).LAZYBOY_STATIC_WORKERS).toBeUndefined();
    });

    it('refuses entries that are not host:port, naming the entry and the variable', () => {
      const refusals: Array<[string, RegExp]> = [
        ['worker', /"worker" is not host:port/],
        ['worker:', /"worker:" is not host:port/],
        ['worker:0', /"worker:0" has a port outside 1-65535/],
        ['worker:65536', /has a port outside 1-65535/],
        ['worker:31o2', /is not host:port/],
        ['http://worker:3102', /is not host:port/],
        ['worker:3102/x', /is not host:port/],
        ['fd00::2:3102', /is not host:port/],
        ['[worker]:3102', /has no IPv6 address between its brackets/],
        ['999.1.1.1:3102', /neither a DNS name nor an IP address/],
        ['-worker:3102', /neither a DNS name nor an IP address/],
        ['wor ker:3102', /neither a DNS name nor an IP address/],
        ['worker:3102,,worker2:3102', /"" is empty/],
        ['worker:3102,WORKER:3102', /"WORKER:3102" is listed twice/],
      ];
      for (const [value, message] of refusals) {
        const parse = () => parseEnv(apiEnvSchema, { ...staticEnv, LAZYBOY_STATIC_WORKERS: value });
        expect(parse).toThrow(ConfigError);
        expect(parse).toThrow(message);
        expect(parse).toThrow(/LAZYBOY_STATIC_WORKERS: /);
      }
    });

    it('needs LAZYBOY_STATIC_WORKERS and LAZYBOY_POOL_TOKEN with LAZYBOY_POOL_DRIVER=static', () => {
      expect(() => parseEnv(apiEnvSchema, staticEnv)).toThrow(
        /LAZYBOY_STATIC_WORKERS: is required with LAZYBOY_POOL_DRIVER=static/,
      );
      expect(() =>
        parseEnv(apiEnvSchema, { ...required, LAZYBOY_POOL_DRIVER: 'static', LAZYBOY_STATIC_WORKERS: 'worker:3102' }),
      ).toThrow(/LAZYBOY_POOL_TOKEN: is required with LAZYBOY_POOL_DRIVER=static/);
      // Read, but not needed, by the other drivers.
      expect(parseEnv(apiEnvSchema, { ...required, LAZYBOY_STATIC_WORKERS: 'worker:3102' }).LAZYBOY_POOL_DRIVER).toBe('local');
    });

    it("gives a pool worker a shared homes directory only as an absolute path, and only with each command's own sandbox", () => {
      const worker = { LAZYBOY_POOL_TOKEN: poolToken };
      expect(parseEnv(poolWorkerEnvSchema, worker).LAZYBOY_HOMES_DIR).toBeUndefined();
      expect(parseEnv(poolWorkerEnvSchema, { ...worker, LAZYBOY_HOMES_DIR: '/var/lib/lazyboy/homes' }).LAZYBOY_HOMES_DIR).toBe(
        '/var/lib/lazyboy/homes',
      );
      expect(() => parseEnv(poolWorkerEnvSchema, { ...worker, LAZYBOY_HOMES_DIR: 'data/homes' })).toThrow(
        /LAZYBOY_HOMES_DIR: must be an absolute path/,
      );
      expect(() => parseEnv(poolWorkerEnvSchema, { ...worker, LAZYBOY_HOMES_DIR: '/var/lib/../homes' })).toThrow(
        /LAZYBOY_HOMES_DIR: must not climb out/,
      );
      // The container holds every computer's home: it cannot be the boundary between computers.
      expect(() =>
        parseEnv(poolWorkerEnvSchema, { ...worker, LAZYBOY_HOMES_DIR: '/homes', LAZYBOY_SHELL_BOUNDARY: 'container' }),
      ).toThrow(/LAZYBOY_SHELL_BOUNDARY: must be bubblewrap with LAZYBOY_HOMES_DIR/);
      // A pod (its home is its own volume) keeps the container as the boundary.
      expect(parseEnv(poolWorkerEnvSchema, { ...worker, LAZYBOY_SHELL_BOUNDARY: 'container' }).LAZYBOY_SHELL_BOUNDARY).toBe(
        'container',
      );
    });
  });
});
