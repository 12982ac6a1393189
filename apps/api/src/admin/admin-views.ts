import type { AdminComputerView, AdminUserView, AdminWorkspaceView, AuditEntryView } from '@lazyboy/contracts';
import { computerView } from '../computers/computer-view.js';
import type { AdminComputerRow, AdminUserRow, AdminWorkspaceRow, AuditRow } from './admin.repository.js';

export function toAdminUserView(user: AdminUserRow): AdminUserView {
  return {
    id: user.id,
    email: user.email,
    displayName: user.displayName,
    isAdmin: user.isAdmin,
    disabledAt: user.disabledAt?.toISOString() ?? null,
    lastLoginAt: user.lastLoginAt?.toISOString() ?? null,
    createdAt: user.createdAt.toISOString(),
    memberships: user.memberships.map((m) => ({
      workspaceId: m.workspace.id,
      workspaceName: m.workspace.name,
      workspaceSlug: m.workspace.slug,
      role: m.role,
    })),
  };
}

export function toAdminWorkspaceView(workspace: AdminWorkspaceRow): AdminWorkspaceView {
  return { ...workspace, createdAt: workspace.createdAt.toISOString() };
}

export function toAdminComputerView(computer: AdminComputerRow): AdminComputerView {
  return {
    ...computerView(computer),
    workspaceName: computer.workspace.name,
    agentName: computer.agent?.name ?? null,
    createdAt: computer.createdAt.toISOString(),
  };
}

export function toAuditEntryView(row: AuditRow): AuditEntryView {
  const details = row.metadata !== null && typeof row.metadata === 'object' && !Array.isArray(row.metadata) ? row.metadata : {};
  return {
    id: row.id.toString(),
    workspaceId: row.workspaceId,
    actorUserId: row.actorUserId,
    actorEmail: row.actor?.email ?? null,
    action: row.action,
    targetType: row.targetType,
    targetId: row.targetId,
    details,
    ip: row.ip,
    createdAt: row.createdAt.toISOString(),
  };
}
