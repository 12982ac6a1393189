'use client';

import Link from 'next/link';
import { useT } from '../lib/i18n';

/** An agent's page before its agent is known (useAgent): loading, or not found. */
export function AgentPending({ missing }: { missing: boolean }) {
  const t = useT();
  return (
    <div className="page-message" data-testid={missing ? 'agent-missing' : 'agent-loading'}>
      {missing ? (
        <>
          <p>{t.agentNotFound}</p>
          <Link href="/">{t.backHome}</Link>
        </>
      ) : (
        <p>{t.loading}</p>
      )}
    </div>
  );
}
