import { z } from 'zod';

/** The `shell` tool's arguments, the same wherever the command runs (the CLI's machine or an agent's computer). */
export const shellArgumentsSchema = z.object({
  command: z.string().min(1),
  timeout_secs: z
    .number()
    .int()
    .min(1)
    .max(24 * 3600)
    .optional(),
  block_until_ms: z.number().int().min(0).optional(),
});
