import type { MembershipRole } from '@lazyboy/contracts';

// What a workspace role may do, as the API decides it (apps/api tenancy and agents): the pages only use
// this to offer what will be allowed; the API refuses the rest anyway.

const RANK: Record<MembershipRole, number> = { member: 0, admin: 1, owner: 2 };

export function hasRole(role: MembershipRole, least: MembershipRole): boolean {
  return RANK[role] >= RANK[least];
}

/** Workspace settings, model settings and keys, members and invitations: owners and admins. */
export function canManage(role: MembershipRole): boolean {
  return hasRole(role, 'admin');
}

/** The roles `caller` may give to a member who has `target` now: only owners touch the owner role. */
export function assignableRoles(caller: MembershipRole, target: MembershipRole): MembershipRole[] {
  if (!canManage(caller)) return [];
  if (caller === 'owner') return ['owner', 'admin', 'member'];
  return target === 'owner' ? [] : ['admin', 'member'];
}

/** Whether `caller` may remove a member with role `target` (anyone may leave: that is another button). */
export function canRemove(caller: MembershipRole, target: MembershipRole): boolean {
  return canManage(caller) && (target !== 'owner' || caller === 'owner');
}
