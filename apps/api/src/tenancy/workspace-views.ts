import type { MemberView, WorkspaceModelView, WorkspaceSummaryView, WorkspaceView } from '@lazyboy/contracts';
import type { MemberRow, WorkspaceWithRole } from './tenancy.repository.js';

export function toSummary(workspace: WorkspaceWithRole): WorkspaceSummaryView {
  return { id: workspace.id, name: workspace.name, slug: workspace.slug, role: workspace.role };
}

export function toView(workspace: WorkspaceWithRole, model: WorkspaceModelView): WorkspaceView {
  return {
    ...toSummary(workspace),
    timezone: workspace.timezone,
    memberCount: workspace.memberCount,
    createdAt: workspace.createdAt.toISOString(),
    updatedAt: workspace.updatedAt.toISOString(),
    model,
  };
}

export function toMemberView(member: MemberRow): MemberView {
  return { ...member, joinedAt: member.joinedAt.toISOString() };
}
