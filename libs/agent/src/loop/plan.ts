import { z } from 'zod';

export const planStepSchema = z.object({
  title: z.string().min(1).max(200),
  status: z.enum(['pending', 'active', 'done', 'dropped']),
});
export type PlanStep = z.infer<typeof planStepSchema>;

/** True while some step still waits or runs: plain text may not end the turn then. */
export function planHasOpenSteps(plan: readonly PlanStep[]): boolean {
  return plan.some((step) => step.status === 'pending' || step.status === 'active');
}

/** A revision drops or renames steps of the plan in force (status changes alone are progress). */
export function isRevision(previous: readonly PlanStep[], next: readonly PlanStep[]): boolean {
  if (previous.length === 0) return false;
  const titles = new Set(next.map((s) => s.title));
  return previous.some((step) => !titles.has(step.title));
}
