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

  describe('the mail transport', () => {
    const mail = { LAZYBOY_MAIL_FROM: 'lazyboy@example.test', LAZYBOY_PUBLIC_URL: 'https://lazyboy.example.test/' };

    it('is optional: unset (or empty) means none', () => {
      expect(loadApiConfig(required).LAZYBOY_SMTP_URL).toBeUndefined();
      expect(loadApiConfig({ ...required, LAZYBOY_SMTP_URL: '', LAZYBOY_MAIL_FROM: '' }).LAZYBOY_SMTP_URL).toBeUndefined();
    });

    it('reads smtp:// and smtps:// URLs, with a percent-encoded account and the usual ports', () => {
      const config = loadApiConfig({
        ...required,
        ...mail,
        LAZYBOY_SMTP_URL: 'smtp://mail%40team:p%40ss%3Aw%C3%B6rd@mail.example.test:2525',
      });
      expect(config.LAZYBOY_SMTP_URL).toEqual({
        secure: false,
        host: 'mail.example.test',
        port: 2525,
        user: 'mail@team',
        password: 'p@ss:wörd',
      });
      expect(config.LAZYBOY_PUBLIC_URL).toBe('https://lazyboy.example.test');
      expect(loadApiConfig({ ...required, ...mail, LAZYBOY_SMTP_URL: 'smtps://mail.example.test' }).LAZYBOY_SMTP_URL).toEqual({
        secure: true,
        host: 'mail.example.test',
        port: 465,
      });
      expect(loadApiConfig({ ...required, ...mail, LAZYBOY_SMTP_URL: 'smtp://[::1]' }).LAZYBOY_SMTP_URL).toEqual({
        secure: false,
        host: '::1',
        port: 587,
      });
    });

    it('refuses to start without a sender or the public URL, naming them', () => {
      const load = () => loadApiConfig({ ...required, LAZYBOY_SMTP_URL: 'smtp://mail.example.test' });
      expect(load).toThrow(/LAZYBOY_MAIL_FROM: required when LAZYBOY_SMTP_URL is set/);
      expect(load).toThrow(/LAZYBOY_PUBLIC_URL: required when LAZYBOY_SMTP_URL is set/);
      expect(() =>
        loadApiConfig({ ...required, ...mail, LAZYBOY_SMTP_URL: 'smtp://m.example.test', LAZYBOY_MAIL_FROM: 'not an address' }),
      ).toThrow(/LAZYBOY_MAIL_FROM/);
    });

    it('refuses a URL it cannot use, without printing it (it may hold the password)', () => {
      for (const url of [
        'http://user:hunter2secret@mail.example.test',
        'smtp://user:hunter2secret@mail.example.test:99999',
        'smtp://user:hunter2secret@mail.example.test/path',
        'smtp://user:hunter2secret@mail.example.test?proxy=socks://x',
        'smtp://:hunter2secret@mail.example.test',
        'smtp://user:hunter2secret%zz@mail.example.test',
        'smtp://user:hunter2secret@',
        'not a url hunter2secret',
      ]) {
        let message = '';
        try {
          loadApiConfig({ ...required, ...mail, LAZYBOY_SMTP_URL: url });
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          message = (error as Error).message;
        }
        expect(message).toMatch(/LAZYBOY_SMTP_URL: /);
        expect(message).not.toContain('hunter2secret');
      }
    });

    it('takes an origin only as the public URL', () => {
      for (const url of [
        'ftp://lazyboy.example.test',
        'https://lazyboy.example.test/app',
        'https://u:p@lazyboy.example.test',
        'https://x.test/?a=1',
        'lazyboy',
      ]) {
        expect(() => loadApiConfig({ ...required, LAZYBOY_PUBLIC_URL: url })).toThrow(/LAZYBOY_PUBLIC_URL/);
      }
    });
  });
});
