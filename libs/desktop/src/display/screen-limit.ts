/** How many screens one (team) computer may run when nobody says otherwise. */
export const DEFAULT_SCREEN_LIMIT = 8;
/** X display numbers are small integers; a computer with more screens than this is a configuration mistake. */
export const MAX_SCREEN_LIMIT = 64;

/** Reads TEAM_SCREEN_LIMIT (1..64); unset or empty means the default. */
export function screenLimitFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['TEAM_SCREEN_LIMIT']?.trim();
  if (!raw) return DEFAULT_SCREEN_LIMIT;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SCREEN_LIMIT) {
    throw new RangeError(`TEAM_SCREEN_LIMIT must be an integer from 1 to ${MAX_SCREEN_LIMIT}, got '${raw}'`);
  }
  return limit;
}
