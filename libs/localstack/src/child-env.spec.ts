import { describe, expect, it } from '@jest/globals';
import { childEnv } from './child-env.js';

const FROM = {
  PATH: '/usr/bin:/bin',
  LANG: 'C.UTF-8',
  LC_TIME: 'en_GB.UTF-8',
  TZ: 'Asia/Taipei',
  HOME: '/root',
  XAI_API_KEY: 'xai-key',
  OPENAI_API_KEY: 'openai-key',
  LAZYBOY_MODEL: 'grok-4',
  LAZYBOY_VAULT_KEY: 'vault-key',
  LAZYBOY_APP_TOKEN: 'admin-token',
  LAZYBOY_SESSION_TTL_HOURS: '12',
  LAZYBOY_SIGNUP: 'closed',
  LAZYBOY_DESKTOP_SESSION: 'xfce',
  LAZYBOY_SMTP_URL: 'smtp://mailer:smtp-password@mail.example.test',
  LAZYBOY_MAIL_FROM: 'lazyboy@example.test',
  AWS_SECRET_ACCESS_KEY: 'cloud-secret',
  SSH_AUTH_SOCK: '/tmp/agent.sock',
};

describe('childEnv', () => {
  it('gives Postgres and Redis the system variables only', () => {
    for (const child of ['postgres', 'redis'] as const) {
      expect(childEnv(child, {}, FROM)).toEqual({
        PATH: '/usr/bin:/bin',
        LANG: 'C.UTF-8',
        LC_TIME: 'en_GB.UTF-8',
        TZ: 'Asia/Taipei',
      });
    }
  });

  it('gives the API its own settings and the model variables, nothing else of the caller', () => {
    expect(childEnv('api', { DATABASE_URL: 'postgresql://x' }, FROM)).toEqual({
      PATH: '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      LC_TIME: 'en_GB.UTF-8',
      TZ: 'Asia/Taipei',
      HOME: '/root',
      XAI_API_KEY: 'xai-key',
      OPENAI_API_KEY: 'openai-key',
      LAZYBOY_MODEL: 'grok-4',
      LAZYBOY_VAULT_KEY: 'vault-key',
      LAZYBOY_APP_TOKEN: 'admin-token',
      LAZYBOY_SESSION_TTL_HOURS: '12',
      LAZYBOY_SIGNUP: 'closed',
      LAZYBOY_DESKTOP_SESSION: 'xfce',
      LAZYBOY_SMTP_URL: 'smtp://mailer:smtp-password@mail.example.test',
      LAZYBOY_MAIL_FROM: 'lazyboy@example.test',
      DATABASE_URL: 'postgresql://x',
    });
  });

  it('gives the web server no model key, vault key or admin token, and its own values win', () => {
    const env = childEnv('web', { LAZYBOY_WEB_PORT: '3101' }, { ...FROM, LAZYBOY_WEB_PORT: '9999' });
    expect(Object.keys(env).sort()).toEqual(['HOME', 'LANG', 'LAZYBOY_WEB_PORT', 'LC_TIME', 'PATH', 'TZ']);
    expect(env.LAZYBOY_WEB_PORT).toBe('3101');
  });
});
