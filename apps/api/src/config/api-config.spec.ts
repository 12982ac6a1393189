import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@lazyboy/contracts';
import { loadApiConfig } from './api-config.js';

const required = {
  DATABASE_URL: 'postgresql://u:p@127.0.0.1:5432/db',
  REDIS_URL: 'redis://127.0.0.1:6379',
  LAZYBOY_VAULT_KEY: 'v'.repeat(32),
  LAZYBOY_INTERNAL_SECRET: 'i'.repeat(32),
};

describe('loadApiConfig', () => {
  it('refuses to start with a blocked network it cannot read, naming the variable and the entry', () => {
    const load = () => loadApiConfig({ ...required, LAZYBOY_MODEL_BLOCKED_NETWORKS: '10.96.0.0/12,10.0.0.0/40' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/LAZYBOY_MODEL_BLOCKED_NETWORKS: '10\.0\.0\.0\/40' is not a network/);
    expect(loadApiConfig({ ...required, LAZYBOY_MODEL_BLOCKED_NETWORKS: '10.96.0.0/12' }).LAZYBOY_MODEL_BLOCKED_NETWORKS).toEqual(
      ['10.96.0.0/12'],
    );
  });

  it('lets people sign up only through an invitation unless LAZYBOY_SIGNUP says otherwise', () => {
    expect(loadApiConfig(required).LAZYBOY_SIGNUP).toBe('invite');
    expect(loadApiConfig({ ...required, LAZYBOY_SIGNUP: 'closed' }).LAZYBOY_SIGNUP).toBe('closed');
    expect(() => loadApiConfig({ ...required, LAZYBOY_SIGNUP: 'everyone' })).toThrow(/LAZYBOY_SIGNUP/);
  });
});
