import type { Prisma } from '../persistence/generated/client.js';
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
