import { loadApiConfig, type ApiConfig } from '../config/api-config.js';

/** API configuration for tests: the throwaway Postgres and Redis that test/support started. */
export function testApiConfig(overrides: Partial<Record<keyof ApiConfig, string>> = {}): ApiConfig {
  return loadApiConfig({ ...process.env, LAZYBOY_LOG_LEVEL: 'warn', ...overrides });
}
