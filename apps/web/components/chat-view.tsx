'use client';

import { useState } from 'react';
import type { BotView } from '@lazyboy/contracts';
import { fill } from '../locales';
import { ApiError } from '../lib/api';
import { agentStatus, pickStatusRun } from '../lib/agent-status';
import { blockingParkedRun } from '../lib/blocking-run';
import { runs as runsApi } from '../lib/endpoints';
import { errorText } from '../lib/error-text';
import { useT } from '../lib/i18n';
import { runsOfSession } from '../lib/runs-store';
import { useShell } from '../lib/shell-context';
import { useChat, type ChatCallbacks } from '../lib/use-chat';
import { Blobatar } from './blobatar';
import { BlockingRun } from './blocking-run';
import { BusyLine } from './busy-line';
import { Composer } from './composer';
import { ErrorBanner } from './error-banner';
import { MessageList } from './message-list';
import { ModelMissingNotice } from './model-missing-notice';
import { PendingQuestion } from './pending-question';
import { PlanChecklist } from './plan-checklist';

interface ChatViewProps {
  bot: BotView;
  /** null: a new chat, created by its first message. */
  sessionId: string | null;
  createSession: ChatCallbacks['createSession'];
  onActivity: ChatCallbacks['onActivity'];
  onOpenComputer(): void;
  onHandBack(): Promise<void>;
  /** The title of another chat of the agent (null when this tab does not know it). */
  chatTitle(sessionId: string): string | null;
}

/** One chat: its messages, what the agent is doing about them, and the composer. */
export function ChatView({ bot, sessionId, createSession, onActivity, onOpenComputer, onHandBack, chatTitle }: ChatViewProps) {
  const t = useT();
  const shell = useShell();
  const chat = useChat(sessionId, { createSession, onActivity, onRun: shell.applyRunAnswer });
  const sessionRuns = sessionId ? runsOfSession(shell.runs, sessionId) : [];
  const run = pickStatusRun(sessionRuns);
  const status = agentStatus(run);
  const plan = run && run.plan.length > 0 ? run.plan : null;
  const [stopping, setStopping] = useState(false);
  const [stopError, setStopError] = useState<string | null>(null);
  // Queued behind the agent's run parked in another chat: say which, and let the person dismiss it.
  const blocker = blockingParkedRun(run, shell.runs.byId.values());
  const question = run && (run.status === 'waiting_input' || run.status === 'waiting_takeover') ? run.question : null;

  async function stop() {
    setStopping(true);
    setStopError(null);
    // Stop means stop: the active run and whatever of this chat queued behind it.
    const results = await Promise.allSettled(sessionRuns.map((r) => runsApi.cancel(r.id)));
    for (const result of results) {
      if (result.status === 'fulfilled') shell.applyRunAnswer(result.value);
      // CONFLICT: it ended on its own meanwhile, which is what was wanted.
      else if (!(result.reason instanceof ApiError && result.reason.code === 'CONFLICT'))
        setStopError(errorText(result.reason, t));
    }
    setStopping(false);
  }

  const empty = chat.status === 'ready' && chat.messages.length === 0 && chat.pending.length === 0;
  const tailKey = [
    status.kind,
    status.kind === 'acting' ? `${status.step.kind}:${status.step.target ?? ''}` : '',
    plan?.map((s) => s.status).join(',') ?? '',
    question?.prompt ?? '',
    blocker?.id ?? '',
  ].join('|');

  return (
    <div className="chat" data-testid="chat" data-session-id={sessionId ?? undefined}>
      {chat.status === 'error' && chat.error && <ErrorBanner message={chat.error} onRetry={chat.reload} />}
      {stopError && <ErrorBanner message={stopError} />}
      <MessageList
        bot={bot}
        messages={chat.messages}
        pending={chat.pending}
        hasOlder={chat.nextBefore !== null}
        loadingOlder={chat.loadingOlder}
        onLoadOlder={chat.loadOlder}
        onRetry={chat.retry}
        tailKey={tailKey}
      >
        {empty && (
          <div className="chat-empty" data-testid="chat-empty">
            <Blobatar seed={bot.avatarSeed} size={88} status={status.kind} />
            <p>{fill(t.chatEmpty, { name: bot.name })}</p>
          </div>
        )}
        {chat.status === 'loading' && <p className="chat-loading">{t.loading}</p>}
        {plan && <PlanChecklist steps={plan} />}
        {question && (
          <PendingQuestion question={question} onAnswer={chat.send} onOpenComputer={onOpenComputer} onHandBack={onHandBack} />
        )}
        {blocker ? (
          <BlockingRun
            agentName={bot.name}
            blocker={blocker}
            chatTitle={(blocker.sessionId && chatTitle(blocker.sessionId)) || t.anotherChat}
            onDismissed={shell.applyRunAnswer}
          />
        ) : (
          <BusyLine status={status} />
        )}
        {!run && <ModelMissingNotice bot={bot} />}
      </MessageList>
      <Composer
        onSend={chat.send}
        onStop={run ? () => void stop() : undefined}
        stopping={stopping || (run?.cancelRequested ?? false)}
        placeholder={fill(t.composerPlaceholder, { name: bot.name })}
      />
    </div>
  );
}
