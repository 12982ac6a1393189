import { randomUUID } from 'node:crypto';
import type { Agent, Prisma, PrismaClient, Run, Chat, User, Workspace } from '../persistence/generated/client.js';

// Rows for repository specs, built straight in the database with defaults that make a valid row: a spec
// names only what its case is about. (Through the API instead: test/support's signUp and the harnesses.)
// These write Run rows in any status, so test/docs/run-status-writes.spec.ts does not read this folder.

type Db = Pick<PrismaClient, 'user' | 'workspace' | 'membership' | 'agent' | 'chat' | 'run'>;

export async function makeUser(db: Db, data: Partial<Prisma.UserUncheckedCreateInput> = {}): Promise<User> {
  const id = randomUUID();
  return db.user.create({ data: { email: `user-${id}@example.test`, displayName: `User ${id.slice(0, 8)}`, ...data } });
}

/** A workspace; with `owner`, that user is its owner. */
export async function makeWorkspace(
  db: Db,
  data: Partial<Prisma.WorkspaceUncheckedCreateInput> & { owner?: User } = {},
): Promise<Workspace> {
  const { owner, ...rest } = data;
  const id = randomUUID();
  const workspace = await db.workspace.create({ data: { name: `Workspace ${id.slice(0, 8)}`, slug: `ws-${id}`, ...rest } });
  if (owner) await db.membership.create({ data: { workspaceId: workspace.id, userId: owner.id, role: 'owner' } });
  return workspace;
}

/** An agent (an Agent row) of the workspace. */
export async function makeAgent(
  db: Db,
  workspace: Pick<Workspace, 'id'>,
  data: Partial<Prisma.AgentUncheckedCreateInput> = {},
): Promise<Agent> {
  const id = randomUUID();
  return db.agent.create({ data: { workspaceId: workspace.id, name: `Agent ${id.slice(0, 8)}`, avatarSeed: id, ...data } });
}

/** A chat (a Chat row) with the agent. */
export async function makeChat(
  db: Db,
  agent: Pick<Agent, 'id' | 'workspaceId'>,
  data: Partial<Prisma.ChatUncheckedCreateInput> = {},
): Promise<Chat> {
  return db.chat.create({ data: { workspaceId: agent.workspaceId, agentId: agent.id, ...data } });
}

/** A run of the chat's agent in that chat: queued unless `data` says otherwise. */
export async function makeRun(
  db: Db,
  chat: Pick<Chat, 'id' | 'workspaceId' | 'agentId'>,
  data: Partial<Prisma.RunUncheckedCreateInput> = {},
): Promise<Run> {
  return db.run.create({ data: { workspaceId: chat.workspaceId, agentId: chat.agentId, chatId: chat.id, ...data } });
}
