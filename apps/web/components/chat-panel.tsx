'use client';

import { useState } from 'react';
import type { AgentView } from '@lazyboy/contracts';
import { fill } from '../locales';
import { ApiError } from '../lib/api';
import { agentStatus, pickStatusRun } from '../lib/agent-status';
import { blockingParkedRun } from '../lib/blocking-run';
import { runs as runsApi } from '../lib/endpoints';
import { errorText } from '../lib/error-text';
import { useT } from '../lib/i18n';
import { runsOfChat } from '../lib/runs-store';
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

interface ChatPanelProps {
  agent: AgentView;
  /** null: a new chat, created by its first message. */
  chatId: string | null;
  createChat: ChatCallbacks['createChat'];
  onActivity: ChatCallbacks['onActivity'];
  onOpenComputer(): void;
  onHandBack(): Promise<void>;
  /** The title of another chat of the agent (null when this tab does not know it). */
  chatTitle(chatId: string): string | null;
}

/** One chat: its messages, what the agent is doing about them, and the composer. */
export function ChatPanel({ agent, chatId, createChat, onActivity, onOpenComputer, onHandBack, chatTitle }: ChatPanelProps) {
  const t = useT();
  const shell = useShell();
  const chat = useChat(chatId, { createChat, onActivity, onRun: shell.applyRunAnswer });
  const chatRuns = chatId ? runsOfChat(shell.runs, chatId) : [];
  const run = pickStatusRun(chatRuns);
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
    const results = await Promise.allSettled(chatRuns.map((r) => runsApi.cancel(r.id)));
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
    <div className="chat" data-testid="chat" data-chat-id={chatId ?? undefined}>
      {chat.status === 'error' && chat.error && <ErrorBanner message={chat.error} onRetry={chat.reload} />}
      {stopError && <ErrorBanner message={stopError} />}
      <MessageList
        agent={agent}
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
            <Blobatar seed={agent.avatarSeed} size={88} status={status.kind} />
            <p>{fill(t.chatEmpty, { name: agent.name })}</p>
          </div>
        )}
        {chat.status === 'loading' && <p className="chat-loading">{t.loading}</p>}
        {plan && <PlanChecklist steps={plan} />}
        {question && (
          <PendingQuestion question={question} onAnswer={chat.send} onOpenComputer={onOpenComputer} onHandBack={onHandBack} />
        )}
        {blocker ? (
          <BlockingRun
            agentName={agent.name}
            blocker={blocker}
            chatTitle={(blocker.chatId && chatTitle(blocker.chatId)) || t.anotherChat}
            onDismissed={shell.applyRunAnswer}
          />
        ) : (
          <BusyLine status={status} />
        )}
        {!run && <ModelMissingNotice agent={agent} />}
      </MessageList>
      <Composer
        onSend={chat.send}
        onStop={run ? () => void stop() : undefined}
        stopping={stopping || (run?.cancelRequested ?? false)}
        placeholder={fill(t.composerPlaceholder, { name: agent.name })}
      />
    </div>
  );
}
