import { z } from 'zod';
import { membershipRoleSchema } from '../domain.js';
import { emailSchema, idSchema, isoDateSchema } from './common.js';

const workspaceName = z.string().trim().min(1).max(80);

/** A workspace as its members list it: with the caller's own role in it. */
export const workspaceSummaryViewSchema = z.object({
  id: idSchema,
  name: z.string(),
  slug: z.string(),
  role: membershipRoleSchema,
});
export type WorkspaceSummaryView = z.infer<typeof workspaceSummaryViewSchema>;

export const workspaceViewSchema = workspaceSummaryViewSchema.extend({
  timezone: z.string(),
  memberCount: z.number().int(),
  createdAt: isoDateSchema,
  updatedAt: isoDateSchema,
});
export type WorkspaceView = z.infer<typeof workspaceViewSchema>;

export const workspaceListViewSchema = z.object({ items: z.array(workspaceSummaryViewSchema) });
export type WorkspaceListView = z.infer<typeof workspaceListViewSchema>;

/** The creator becomes its owner; the slug is derived from the name and made unique. */
export const createWorkspaceRequestSchema = z.strictObject({ name: workspaceName });
export type CreateWorkspaceRequest = z.infer<typeof createWorkspaceRequestSchema>;

export const updateWorkspaceRequestSchema = z.strictObject({ name: workspaceName });
export type UpdateWorkspaceRequest = z.infer<typeof updateWorkspaceRequestSchema>;

export const memberViewSchema = z.object({
  userId: idSchema,
  email: z.string(),
  displayName: z.string(),
  role: membershipRoleSchema,
  joinedAt: isoDateSchema,
});
export type MemberView = z.infer<typeof memberViewSchema>;

export const memberListViewSchema = z.object({ items: z.array(memberViewSchema) });
export type MemberListView = z.infer<typeof memberListViewSchema>;

/** Adds an existing user (by sign-in email) to the workspace. Only owners may add owners. */
export const addMemberRequestSchema = z.strictObject({
  email: emailSchema,
  role: membershipRoleSchema.default('member'),
});
export type AddMemberRequest = z.infer<typeof addMemberRequestSchema>;

/** Only owners may grant or revoke the owner role; the last owner keeps it. */
export const updateMemberRequestSchema = z.strictObject({ role: membershipRoleSchema });
export type UpdateMemberRequest = z.infer<typeof updateMemberRequestSchema>;
