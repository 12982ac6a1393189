'use client';

import Link from 'next/link';
import type { AgentView } from '@lazyboy/contracts';
import { useT } from '../lib/i18n';
import { canManage } from '../lib/roles';
import { runErrorText } from '../lib/run-error-text';
import { useShell } from '../lib/shell-context';

/**
 * Shown in a chat whose agent has no model it can use, before anyone sends a message that could only fail:
 * why, in the person's language, and where to fix it (owners and admins) or whom to ask (members).
 */
export function ModelMissingNotice({ agent }: { agent: AgentView }) {
  const t = useT();
  const { workspace } = useShell();
  const readiness = agent.modelReadiness;
  if (readiness.usable) return null;
  // The agent's own settings name the endpoint: that is where the problem is.
  const href = readiness.source === 'agent' ? `/agents/${agent.id}/settings` : '/settings';
  return (
    <div className="chat-notice" role="status" data-testid="model-missing" data-code={readiness.code ?? undefined}>
      <p>{runErrorText(readiness.code ?? 'model_not_configured', t)}</p>
      {canManage(workspace.role) ? (
        <Link href={href} className="button button-small button-primary" data-testid="model-missing-settings">
          {readiness.source === 'agent' ? t.modelMissingAgentSettings : t.modelMissingSettings}
        </Link>
      ) : (
        <p className="chat-notice-sub" data-testid="model-missing-ask-owner">
          {t.modelMissingAskOwner}
        </p>
      )}
    </div>
  );
}
