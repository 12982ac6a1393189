import { loadApiConfig, type ApiConfig } from '../config/api-config.js';

/** A fixed key: tests never keep secrets beyond their own database. */
export const TEST_VAULT_KEY = 'test-vault-key-0123456789abcdef0123456789abcdef';

/** Shared with the web server the web tests start (test/web/web-harness.ts). */
export const TEST_INTERNAL_SECRET = 'test-internal-secret-0123456789abcdef0123456789';

/** API configuration for tests: the throwaway Postgres and Redis that test/support started. */
export function testApiConfig(overrides: Partial<Record<keyof ApiConfig, string>> = {}): ApiConfig {
  return loadApiConfig({
    ...process.env,
    LAZYBOY_LOG_LEVEL: 'warn',
    LAZYBOY_VAULT_KEY: TEST_VAULT_KEY,
    LAZYBOY_INTERNAL_SECRET: TEST_INTERNAL_SECRET,
    // Suites share lazyboy_test: an executor would claim other suites' runs. Suites that run agents opt in
    // with their own database (test/service/service-harness.ts).
    LAZYBOY_RUNNER: 'false',
    // Every suite signs its people up from loopback; the limit itself is tested with its own value (auth.spec).
    LAZYBOY_SIGNUPS_PER_HOUR: '100000',
    LAZYBOY_INVITATION_LOOKUPS_PER_HOUR: '100000',
    // Suites sign their people up freely (test/support's signUp). The product's default, `invite`, and the
    // other policies are tested with their own value (invitations.spec).
    LAZYBOY_SIGNUP: 'open',
    ...overrides,
  });
}
