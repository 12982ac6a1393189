import { apiEnvSchema, parseEnv, type ApiEnv } from '@lazyboy/contracts';

/** Injection token of the parsed, validated API configuration. */
export const API_CONFIG = Symbol('API_CONFIG');
export type ApiConfig = ApiEnv;

export function loadApiConfig(env: Record<string, string | undefined> = process.env): ApiConfig {
  return parseEnv(apiEnvSchema, env);
}
