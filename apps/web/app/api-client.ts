import { parseEnv, readinessReportSchema, webEnvSchema, type ReadinessReport } from '@lazyboy/contracts';

/** Where this web server reaches the API, read at request time (not baked into the build). */
export function apiUrl(): string {
  return parseEnv(webEnvSchema, process.env).LAZYBOY_API_URL;
}

/** The API's readiness report, or null when the API does not answer. */
export async function fetchReadiness(): Promise<ReadinessReport | null> {
  try {
    const res = await fetch(`${apiUrl()}/readyz`, { cache: 'no-store', signal: AbortSignal.timeout(3_000) });
    return readinessReportSchema.parse(await res.json());
  } catch {
    return null;
  }
}
