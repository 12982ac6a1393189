import { randomUUID } from 'node:crypto';
import type { Bot, Prisma, PrismaClient, Run, Session, User, Workspace } from '../persistence/generated/client.js';

// Rows for repository specs, built straight in the database with defaults that make a valid row: a spec
// names only what its case is about. (Through the API instead: test/support's signUp and the harnesses.)
// These write Run rows in any status, so test/docs/run-status-writes.spec.ts does not read this folder.

type Db = Pick<PrismaClient, 'user' | 'workspace' | 'membership' | 'bot' | 'session' | 'run'>;

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

/** An agent (a Bot row) of the workspace. */
export async function makeAgent(
  db: Db,
  workspace: Pick<Workspace, 'id'>,
  data: Partial<Prisma.BotUncheckedCreateInput> = {},
): Promise<Bot> {
  const id = randomUUID();
  return db.bot.create({ data: { workspaceId: workspace.id, name: `Agent ${id.slice(0, 8)}`, avatarSeed: id, ...data } });
}

/** A chat (a Session row) with the agent. */
export async function makeChat(
  db: Db,
  agent: Pick<Bot, 'id' | 'workspaceId'>,
  data: Partial<Prisma.SessionUncheckedCreateInput> = {},
): Promise<Session> {
  return db.session.create({ data: { workspaceId: agent.workspaceId, botId: agent.id, ...data } });
}

/** A run of the chat's agent in that chat: queued unless `data` says otherwise. */
export async function makeRun(
  db: Db,
  chat: Pick<Session, 'id' | 'workspaceId' | 'botId'>,
  data: Partial<Prisma.RunUncheckedCreateInput> = {},
): Promise<Run> {
  return db.run.create({ data: { workspaceId: chat.workspaceId, botId: chat.botId, sessionId: chat.id, ...data } });
}
