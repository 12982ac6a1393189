import { Prisma } from '../persistence/generated/client.js';
import type { Principal } from '../auth/principal.js';

/**
 * The workspaces a principal may see, as a Prisma filter: those they are a member of, narrowed to one
 * when their API token is limited to it. Every repository query for tenant data by id goes through
 * `{ id, workspace: visibleWorkspaces(principal) }`, so a foreign id simply finds nothing (404).
 */
export function visibleWorkspaces(principal: Pick<Principal, 'userId' | 'tokenWorkspaceId'>): Prisma.WorkspaceWhereInput {
  return {
    memberships: { some: { userId: principal.userId } },
    ...(principal.tokenWorkspaceId ? { id: principal.tokenWorkspaceId } : {}),
  };
}

/**
 * The same rule for plain-SQL queries: a condition on `workspaceColumn` (for instance `s."workspaceId"`)
 * that holds for the workspaces `visibleWorkspaces` lets through.
 */
export function visibleWorkspaceSql(
  principal: Pick<Principal, 'userId' | 'tokenWorkspaceId'>,
  workspaceColumn: Prisma.Sql,
): Prisma.Sql {
  const member = Prisma.sql`EXISTS (
    SELECT 1 FROM "Membership" vm WHERE vm."workspaceId" = ${workspaceColumn} AND vm."userId" = ${principal.userId}::uuid)`;
  return principal.tokenWorkspaceId
    ? Prisma.sql`(${member} AND ${workspaceColumn} = ${principal.tokenWorkspaceId}::uuid)`
    : member;
}
