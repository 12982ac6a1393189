import { describe, expect, it } from '@jest/globals';
import { ConfigError, apiEnvSchema, parseEnv, stackEnvSchema, webEnvSchema, workerEnvSchema } from './config.js';

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
});
