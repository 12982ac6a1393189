import { z } from 'zod';
import { messageRoleSchema } from '../domain.js';
import { runErrorCodeSchema } from '../run-error-codes.js';
import { idSchema, isoDateSchema } from './common.js';
import { runViewSchema } from './runs.js';

export const createChatRequestSchema = z.strictObject({ title: z.string().trim().max(200).optional() });
export type CreateChatRequest = z.infer<typeof createChatRequestSchema>;

/** Renames a chat; an empty title shows the chat by its first message. */
export const updateChatRequestSchema = z.strictObject({ title: z.string().trim().max(200) });
export type UpdateChatRequest = z.infer<typeof updateChatRequestSchema>;

export const chatViewSchema = z.object({
  id: idSchema,
  workspaceId: idSchema,
  agentId: idSchema,
  title: z.string(),
  lastMessageAt: isoDateSchema,
  createdAt: isoDateSchema,
});
export type ChatView = z.infer<typeof chatViewSchema>;

export const postMessageRequestSchema = z.strictObject({
  text: z.string().trim().min(1).max(20_000),
  /** Chosen by the client once per message: a retried POST with the same nonce returns the same message and run. */
  clientNonce: z
    .string()
    .min(8)
    .max(100)
    .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : -'),
});
export type PostMessageRequest = z.infer<typeof postMessageRequestSchema>;

/**
 * How a run ended, when the service (not the agent) wrote the message: the stable code, which clients word in
 * their person's language instead of the message's English text (kept for the model's context and API clients).
 */
export const messageNoticeSchema = z.object({
  code: runErrorCodeSchema,
  /** The model provider's own error text when a model failure ended the run (one line, never a key). */
  providerMessage: z.string().nullable(),
});
export type MessageNotice = z.infer<typeof messageNoticeSchema>;

export const messageViewSchema = z.object({
  id: idSchema,
  chatId: idSchema,
  role: messageRoleSchema,
  text: z.string(),
  /** A progress note the agent sent while it kept working (not its final answer). */
  progress: z.boolean(),
  clientNonce: z.string().nullable(),
  authorUserId: idSchema.nullable(),
  agentId: idSchema.nullable(),
  runId: idSchema.nullable(),
  /** Set on the message a run's error or guard ended it with; null on everything people and agents wrote. */
  notice: messageNoticeSchema.nullable(),
  createdAt: isoDateSchema,
});
export type MessageView = z.infer<typeof messageViewSchema>;

export const postMessageResponseSchema = z.object({
  message: messageViewSchema,
  run: runViewSchema,
  /** The agent is busy with an earlier run: this one starts when that one ends. */
  queuedBehindActive: z.boolean(),
  /** True when this answered an earlier POST with the same clientNonce. */
  replayed: z.boolean(),
});
export type PostMessageResponse = z.infer<typeof postMessageResponseSchema>;
