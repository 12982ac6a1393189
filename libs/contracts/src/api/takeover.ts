import { z } from 'zod';
import { PERSON_TYPE_MAX, typedViaSchema } from '../worker-api.js';
import { screenViewSchema } from './computers.js';
import { runViewSchema } from './runs.js';

/** After a takeover or a release: the agent's screen and its active run (parked or resumed), if any. */
export const takeoverResponseSchema = z.object({
  screen: screenViewSchema.nullable(),
  run: runViewSchema.nullable(),
});
export type TakeoverResponse = z.infer<typeof takeoverResponseSchema>;

/** Text the person holding the screen types into it (their paste, their phone keyboard's Chinese). */
export const personTypeRequestSchema = z.strictObject({ text: z.string().min(1).max(PERSON_TYPE_MAX) });
export type PersonTypeRequest = z.infer<typeof personTypeRequestSchema>;

export const personTypeResponseSchema = z.object({ via: typedViaSchema });
export type PersonTypeResponse = z.infer<typeof personTypeResponseSchema>;
