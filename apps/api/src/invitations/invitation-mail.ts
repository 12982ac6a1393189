import type { MembershipRole } from '@lazyboy/contracts';
import type { MailMessage } from '../mail/mail-transport.js';

export interface InvitationMailFacts {
  to: string;
  /** `${LAZYBOY_PUBLIC_URL}/invite/<token>` */
  link: string;
  workspaceName: string;
  /** Null once the inviting account is gone. */
  inviterDisplayName: string | null;
  role: MembershipRole;
  expiresAt: Date;
}

const ROLE: Record<MembershipRole, { zh: string; en: string }> = {
  owner: { zh: '擁有者', en: 'owner' },
  admin: { zh: '管理者', en: 'admin' },
  member: { zh: '成員', en: 'member' },
};

/** `2026-12-09 02:40 UTC`: the API does not know the reader's time zone, so it says which one it uses. */
function utc(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Names people chose, kept to one line (the subject is a header). */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The invitation mail, in both of the web app's languages (zh-TW first, its default): the API does not know
 * which one the invited person reads.
 */
export function invitationMail(facts: InvitationMailFacts): MailMessage {
  const workspace = oneLine(facts.workspaceName);
  const inviter = facts.inviterDisplayName === null ? null : oneLine(facts.inviterDisplayName);
  const role = ROLE[facts.role];
  const expires = utc(facts.expiresAt);
  const zh = [
    inviter === null
      ? `你受邀以「${role.zh}」身分加入 LazyBoy 工作區「${workspace}」。`
      : `${inviter} 邀請你以「${role.zh}」身分加入 LazyBoy 工作區「${workspace}」。`,
    '',
    '開啟這個連結即可建立帳號並加入（已有帳號請登入後接受）：',
    facts.link,
    '',
    `這個連結只能使用一次，${expires} 前有效。`,
    '如果你不認識邀請人，忽略這封信即可。',
  ];
  const en = [
    inviter === null
      ? `You are invited to join the LazyBoy workspace “${workspace}” as ${role.en}.`
      : `${inviter} invites you to join the LazyBoy workspace “${workspace}” as ${role.en}.`,
    '',
    'Open this link to create your account and join (or sign in and accept, if you have one):',
    facts.link,
    '',
    `The link works once, until ${expires}.`,
    'If you do not know who invited you, ignore this mail.',
  ];
  return {
    to: facts.to,
    subject: `LazyBoy：加入「${workspace}」的邀請 / Invitation to join “${workspace}”`,
    text: [...zh, '', '—', '', ...en, ''].join('\n'),
  };
}
