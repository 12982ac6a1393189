import type { MemberView, WorkspaceSummaryView, WorkspaceView } from '@lazyboy/contracts';
import type { MemberRow, WorkspaceWithRole } from './tenancy.repository.js';

export function toSummary(workspace: WorkspaceWithRole): WorkspaceSummaryView {
  return { id: workspace.id, name: workspace.name, slug: workspace.slug, role: workspace.role };
}

export function toView(workspace: WorkspaceWithRole): WorkspaceView {
  return {
    ...toSummary(workspace),
    timezone: workspace.timezone,
    memberCount: workspace.memberCount,
    createdAt: workspace.createdAt.toISOString(),
    updatedAt: workspace.updatedAt.toISOString(),
  };
}

export function toMemberView(member: MemberRow): MemberView {
  return { ...member, joinedAt: member.joinedAt.toISOString() };
}
