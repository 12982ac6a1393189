import { z } from 'zod';
import { screenViewSchema } from './computers.js';
import { runViewSchema } from './runs.js';

/** After a takeover or a release: the agent's screen and its active run (parked or resumed), if any. */
export const takeoverResponseSchema = z.object({
  screen: screenViewSchema.nullable(),
  run: runViewSchema.nullable(),
});
export type TakeoverResponse = z.infer<typeof takeoverResponseSchema>;
