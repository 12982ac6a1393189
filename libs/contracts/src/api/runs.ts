import { z } from 'zod';
import { runKindSchema } from '../domain.js';
import { runStatusSchema } from '../run-lifecycle.js';
import { busyStepSchema } from './busy-step.js';
import { runErrorCodeSchema } from '../run-error-codes.js';
import { idSchema, isoDateSchema } from './common.js';

/** A question a parked run waits on (waiting_input / waiting_takeover). */
export const pendingQuestionViewSchema = z.object({
  kind: z.enum(['input', 'confirm', 'handoff', 'takeover']),
  prompt: z.string(),
  draft: z.string().optional(),
});

/** One step of the checklist the agent keeps for a multi-stage task (its update_plan tool). */
export const planStepViewSchema = z.object({
  title: z.string(),
  status: z.enum(['pending', 'active', 'done', 'dropped']),
});
export type PlanStepView = z.infer<typeof planStepViewSchema>;

export const runViewSchema = z.object({
  id: idSchema,
  workspaceId: idSchema,
  agentId: idSchema,
  chatId: idSchema.nullable(),
  kind: runKindSchema,
  status: runStatusSchema,
  /** What the agent is doing right now (thinking, booting the computer, the current action); null when idle. */
  busyStep: busyStepSchema.nullable(),
  roundsUsed: z.number().int(),
  /** The agent's plan checklist as it last saved it (empty when it keeps none). */
  plan: z.array(planStepViewSchema),
  question: pendingQuestionViewSchema.nullable(),
  /** The final summary or blocked reason. */
  resultText: z.string().nullable(),
  /** Why a blocked or failed run ended (libs/contracts run-error-codes.ts lists every code). */
  errorCode: runErrorCodeSchema.nullable(),
  errorMessage: z.string().nullable(),
  cancelRequested: z.boolean(),
  createdAt: isoDateSchema,
  startedAt: isoDateSchema.nullable(),
  finishedAt: isoDateSchema.nullable(),
});
export type RunView = z.infer<typeof runViewSchema>;

/** Runs of a workspace that are queued, executing or parked: what each agent is busy with now. */
export const runListViewSchema = z.object({ items: z.array(runViewSchema) });
export type RunListView = z.infer<typeof runListViewSchema>;

/** Answers a run parked in waiting_input (the same as posting the next message in its chat). */
export const answerRunRequestSchema = z.strictObject({ text: z.string().trim().min(1).max(20_000) });
export type AnswerRunRequest = z.infer<typeof answerRunRequestSchema>;

export const runEventViewSchema = z.object({
  seq: z.number().int(),
  type: z.string(),
  payload: z.unknown(),
  createdAt: isoDateSchema,
});
export type RunEventView = z.infer<typeof runEventViewSchema>;
