import { z } from 'zod';

/** The dependencies /readyz checks; a 503 names the ones that failed. */
export const readinessComponentSchema = z.enum(['postgres', 'redis']);
export type ReadinessComponent = z.infer<typeof readinessComponentSchema>;

export const componentCheckSchema = z.object({
  ok: z.boolean(),
  latencyMs: z.number().nonnegative(),
  error: z.string().optional(),
});
export type ComponentCheck = z.infer<typeof componentCheckSchema>;

export const readinessReportSchema = z.object({
  status: z.enum(['ready', 'unavailable']),
  /** Components that failed, in a fixed order; empty when ready. */
  failing: z.array(readinessComponentSchema),
  checks: z.record(readinessComponentSchema, componentCheckSchema),
});
export type ReadinessReport = z.infer<typeof readinessReportSchema>;

export const livenessReportSchema = z.object({
  status: z.literal('ok'),
  uptimeSeconds: z.number().nonnegative(),
});
export type LivenessReport = z.infer<typeof livenessReportSchema>;
