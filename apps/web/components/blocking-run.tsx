'use client';

import { useState } from 'react';
import type { RunView } from '@lazyboy/contracts';
import { fill } from '../locales';
import { ApiError } from '../lib/api';
import { runs as runsApi } from '../lib/endpoints';
import { errorText } from '../lib/error-text';
import { useT } from '../lib/i18n';
import { FormError } from './form-error';

interface BlockingRunProps {
  agentName: string;
  /** The agent's run parked in another chat, which this chat's queued run waits for. */
  blocker: RunView;
  /** That chat's title. */
  chatTitle: string;
  onDismissed(run: RunView): void;
}

/**
 * Under a queued message: it waits for the agent's run parked in another chat, and that run can be
 * dismissed from here (POST /api/runs/:id/cancel), after which the queued run goes ahead.
 */
export function BlockingRun({ agentName, blocker, chatTitle, onDismissed }: BlockingRunProps) {
  const t = useT();
  const [dismissing, setDismissing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const text = blocker.status === 'waiting_takeover' ? t.queuedBehindTakeover : t.queuedBehindQuestion;

  async function dismiss() {
    setDismissing(true);
    setError(null);
    try {
      onDismissed(await runsApi.cancel(blocker.id));
    } catch (failure) {
      // CONFLICT: it ended meanwhile (answered, expired, dismissed by someone else): the queue moves anyway.
      if (!(failure instanceof ApiError && failure.code === 'CONFLICT')) setError(errorText(failure, t));
    } finally {
      setDismissing(false);
    }
  }

  return (
    <div className="blocking-run" data-testid="blocking-run" data-run-id={blocker.id} role="status">
      <span>{fill(text, { name: agentName, chat: chatTitle })}</span>
      <button
        type="button"
        className="button button-small"
        data-testid="dismiss-blocking-run"
        disabled={dismissing}
        onClick={() => void dismiss()}
      >
        {t.dismissThatRun}
      </button>
      <FormError error={error} />
    </div>
  );
}
