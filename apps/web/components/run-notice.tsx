'use client';

import Link from 'next/link';
import type { MessageNotice } from '@lazyboy/contracts';
import { useT } from '../lib/i18n';
import { canManage } from '../lib/roles';
import { isModelSettingsProblem, runErrorText } from '../lib/run-error-text';
import { useShell } from '../lib/shell-context';
import { ProviderText } from './provider-text';

/**
 * The message a run ended with on an error or a guard, in the person's language (the API's English text
 * stays out of the page), with the provider's own words and where to fix a model problem.
 */
export function RunNotice({ notice, agentId }: { notice: MessageNotice; agentId: string }) {
  const t = useT();
  const { workspace, agents } = useShell();
  const modelProblem = isModelSettingsProblem(notice.code);
  // The agent's own model, when it has one, is where a model problem is fixed.
  const ownModel = agents?.find((b) => b.id === agentId)?.modelReadiness.source === 'agent';
  return (
    <div className="run-notice" data-testid="run-notice" data-code={notice.code}>
      <p className="run-notice-text">{runErrorText(notice.code, t)}</p>
      {notice.providerMessage && <ProviderText text={notice.providerMessage} status={null} />}
      {modelProblem &&
        (canManage(workspace.role) ? (
          <Link
            href={ownModel ? `/agents/${agentId}/settings` : '/settings'}
            className="run-notice-link"
            data-testid="run-notice-settings"
          >
            {ownModel ? t.modelMissingAgentSettings : t.modelMissingSettings}
          </Link>
        ) : (
          <p className="run-notice-sub">{t.modelMissingAskOwner}</p>
        ))}
    </div>
  );
}
