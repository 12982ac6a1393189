import { z } from 'zod';

// The domain's closed vocabularies. prisma/schema.prisma declares the same enums for the database;
// a test keeps the two in step.

export const membershipRoleSchema = z.enum(['owner', 'admin', 'member']);
export type MembershipRole = z.infer<typeof membershipRoleSchema>;

/**
 * Who may make an account: `invite` (only through an invitation link), `open` (anyone who reaches the
 * server) or `closed` (nobody; invitations still bring existing accounts into a workspace).
 */
export const signupPolicySchema = z.enum(['invite', 'open', 'closed']);
export type SignupPolicy = z.infer<typeof signupPolicySchema>;

export const computerModeSchema = z.enum(['team', 'private']);
export type ComputerMode = z.infer<typeof computerModeSchema>;

export const computerStateSchema = z.enum(['stopped', 'booting', 'running', 'suspended', 'error']);
export type ComputerState = z.infer<typeof computerStateSchema>;

export const controlHolderSchema = z.enum(['agent', 'user']);
export type ControlHolder = z.infer<typeof controlHolderSchema>;

export const messageRoleSchema = z.enum(['user', 'assistant', 'system', 'tool']);
export type MessageRole = z.infer<typeof messageRoleSchema>;

export const runKindSchema = z.enum(['chat', 'general', 'skill']);
export type RunKind = z.infer<typeof runKindSchema>;

export const memorySourceSchema = z.enum(['user', 'agent']);
export type MemorySource = z.infer<typeof memorySourceSchema>;

export const skillStatusSchema = z.enum(['recording', 'draft', 'ready']);
export type SkillStatus = z.infer<typeof skillStatusSchema>;

export const mcpTransportSchema = z.enum(['stdio', 'http', 'sse']);
export type McpTransport = z.infer<typeof mcpTransportSchema>;

/** Dimensions of every stored memory vector (the MemoryItem.embedding column is vector(384)). */
export const MEMORY_VECTOR_DIMENSIONS = 384;
