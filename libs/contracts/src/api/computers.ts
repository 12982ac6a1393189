import { z } from 'zod';
import { computerModeSchema, computerStateSchema, controlHolderSchema } from '../domain.js';
import { idSchema, isoDateSchema } from './common.js';

export const screenViewSchema = z.object({
  id: idSchema,
  slot: z.number().int(),
  display: z.number().int(),
  agentId: idSchema.nullable(),
  controlHolder: controlHolderSchema,
  controlUserId: idSchema.nullable(),
  controlExpiresAt: isoDateSchema.nullable(),
  executionRunId: idSchema.nullable(),
});
export type ScreenView = z.infer<typeof screenViewSchema>;

export const computerViewSchema = z.object({
  id: idSchema,
  workspaceId: idSchema,
  kind: computerModeSchema,
  agentId: idSchema.nullable(),
  state: computerStateSchema,
  lastViewedAt: isoDateSchema.nullable(),
  bootedAt: isoDateSchema.nullable(),
  suspendedAt: isoDateSchema.nullable(),
  stoppedAt: isoDateSchema.nullable(),
  memoryBytes: z.number().nullable(),
  errorMessage: z.string().nullable(),
  screens: z.array(screenViewSchema),
});
export type ComputerView = z.infer<typeof computerViewSchema>;

/** What an agent's computer panel shows: its computer (null before the first boot) and its own screen. */
export const agentComputerViewSchema = z.object({
  computer: computerViewSchema.nullable(),
  screen: screenViewSchema.nullable(),
});
export type AgentComputerView = z.infer<typeof agentComputerViewSchema>;

export const viewerTicketRequestSchema = z.strictObject({ mode: z.enum(['view', 'control']).default('view') });
export type ViewerTicketRequest = z.infer<typeof viewerTicketRequestSchema>;

export const viewerTicketResponseSchema = z.object({
  ticket: z.string(),
  mode: z.enum(['view', 'control']),
  expiresAt: isoDateSchema,
  /** Path on the web server that proxies this ticket's VNC websocket. */
  path: z.string(),
});
export type ViewerTicketResponse = z.infer<typeof viewerTicketResponseSchema>;

/** What the web server learns when it redeems a ticket: where to proxy, and whether input is allowed. */
export const viewerTicketRedeemResponseSchema = z.object({
  /** The worker's VNC websocket for the screen (ws://…/screens/<slot>/vnc). */
  target: z.string(),
  /** The view grant the worker wants in `Authorization: Bearer …` (single use, a minute). */
  grant: z.string(),
  viewOnly: z.boolean(),
  screenId: idSchema,
  /** Whom the ticket was issued to: the web server serves it only to that signed-in person. */
  userId: idSchema,
  expiresAt: isoDateSchema,
});
export type ViewerTicketRedeemResponse = z.infer<typeof viewerTicketRedeemResponseSchema>;

export const computerListResponseSchema = z.object({ items: z.array(computerViewSchema) });
export type ComputerListResponse = z.infer<typeof computerListResponseSchema>;

/** The most holds one control check may ask about. */
export const CONTROL_CHECK_MAX_HOLDS = 1_000;

/**
 * The web server asks, about every view connection it lets drive a screen, whether that person still
 * holds the screen's control (a lease can end elsewhere: it expired, an admin ended it, another tab
 * handed back).
 */
export const viewerControlCheckRequestSchema = z.strictObject({
  holds: z
    .array(z.strictObject({ screenId: idSchema, userId: idSchema }))
    .min(1)
    .max(CONTROL_CHECK_MAX_HOLDS),
});
export type ViewerControlCheckRequest = z.infer<typeof viewerControlCheckRequestSchema>;

export const viewerControlCheckResponseSchema = z.object({
  holds: z.array(z.object({ screenId: idSchema, userId: idSchema, held: z.boolean() })),
});
export type ViewerControlCheckResponse = z.infer<typeof viewerControlCheckResponseSchema>;

/** The web server (with its shared secret) hands over the ticket the browser got: it names the person and screen. */
export const viewerTicketRedeemRequestSchema = z.strictObject({ ticket: z.string().min(1).max(4_096) });
export type ViewerTicketRedeemRequest = z.infer<typeof viewerTicketRedeemRequestSchema>;
