import { apiEnvSchema, ConfigError, parseEnv, type ApiEnv } from '@lazyboy/contracts';
import { ModelEndpointPolicy } from '@lazyboy/model';

/** Injection token of the parsed, validated API configuration. */
export const API_CONFIG = Symbol('API_CONFIG');
export type ApiConfig = ApiEnv;

export function loadApiConfig(env: Record<string, string | undefined> = process.env): ApiConfig {
  const config = parseEnv(apiEnvSchema, env);
  // The networks are read by the model endpoint policy, the one parser of them (Node's BlockList).
  try {
    new ModelEndpointPolicy({ blockedNetworks: config.LAZYBOY_MODEL_BLOCKED_NETWORKS });
  } catch (error) {
    throw new ConfigError(`invalid configuration:\n  LAZYBOY_MODEL_BLOCKED_NETWORKS: ${(error as Error).message}`);
  }
  return config;
}
