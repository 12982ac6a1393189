'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import { useRouter, useSearchParams } from 'next/navigation';
import type { BotView, SessionView } from '@lazyboy/contracts';
import { fill } from '../locales';
import { bots as botsApi, computers, sessions as sessionsApi } from '../lib/endpoints';
import { errorText } from '../lib/error-text';
import { useT } from '../lib/i18n';
import { useShell } from '../lib/shell-context';
import { useBot } from '../lib/use-bot';
import { useSessions } from '../lib/use-sessions';
import { AgentPending } from './agent-pending';
import { ChatHeader } from './chat-header';
import { ChatView } from './chat-view';
import { ComputerPanel, type ComputerPanelHandle } from './computer-panel';
import { ConfirmDialog, PromptDialog } from './dialog';
import { ErrorBanner } from './error-banner';
import { NEW_SESSION, SessionPicker, useSessionTitle } from './session-picker';

type Dialog =
  | { kind: 'rename-session' | 'clear-session' | 'delete-session'; session: SessionView }
  | { kind: 'rename-agent' | 'delete-agent' };

/** A chat's title from its first message: its first line, cut short. */
function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** /agents/[botId]: the agent's chats (?session=<id>, or `new` for a chat not written in yet). */
export function AgentConversation({ botId }: { botId: string }) {
  const { bot, missing } = useBot(botId);
  if (!bot) return <AgentPending missing={missing} />;
  return <AgentChats key={bot.id} bot={bot} />;
}

function AgentChats({ bot }: { bot: BotView }) {
  const t = useT();
  const router = useRouter();
  const shell = useShell();
  const search = useSearchParams();
  const sessions = useSessions(bot.id);
  const sessionTitle = useSessionTitle();
  const [computerOpen, setComputerOpen] = useState(false);
  // Opening the computer from the agent's takeover question also takes over; the header toggle only shows it.
  const [takeoverRequest, setTakeoverRequest] = useState(0);
  const computerPanel = useRef<ComputerPanelHandle>(null);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [dialogError, setDialogError] = useState<string | null>(null);
  const [draftNo, setDraftNo] = useState(0);
  // A draft that created its chat keeps its view (and its messages being sent) under the chat's id.
  const [adopted, setAdopted] = useState<{ sessionId: string; key: string } | null>(null);
  // Bumped after a clear: the chat view starts over from the (now empty) chat.
  const [epoch, setEpoch] = useState(0);

  const param = search.get('session');
  const selectedId = param && param !== NEW_SESSION ? param : null;
  const list = sessions.list;

  const go = useCallback(
    (session: string | null, replace = false) => {
      const url = session ? `/agents/${bot.id}?session=${encodeURIComponent(session)}` : `/agents/${bot.id}`;
      window.history[replace ? 'replaceState' : 'pushState'](null, '', url);
    },
    [bot.id],
  );

  // No chat named: open the most recent one, or a new one when there is none.
  useEffect(() => {
    if (!list) return;
    if (param === null && list[0]) go(list[0].id, true);
    else if (selectedId && !list.some((s) => s.id === selectedId) && adopted?.sessionId !== selectedId) go(null, true);
  }, [list, param, selectedId, adopted, go]);

  const draftKey = `draft-${draftNo}`;
  const chatKey = selectedId ? (adopted?.sessionId === selectedId ? adopted.key : selectedId) : draftKey;
  const waitingForList = param === null && !list;

  const createSession = useCallback(
    async (firstText: string) => {
      const session = await sessionsApi.create(bot.id, titleFrom(firstText) || undefined);
      sessions.put(session);
      setAdopted({ sessionId: session.id, key: draftKey });
      go(session.id, true);
      return session.id;
    },
    [bot.id, sessions, draftKey, go],
  );

  function closeComputer() {
    setComputerOpen(false);
    // A later open from the header is only for watching.
    setTakeoverRequest(0);
  }

  /** The open panel stops its input at the view proxy before the release; without it, the release alone does. */
  async function handBack() {
    if (computerPanel.current) await computerPanel.current.handBack();
    else await computers.release(bot.id);
  }

  function openDialog(next: Dialog) {
    setDialogError(null);
    setDialog(next);
  }

  async function act(work: () => Promise<void>) {
    try {
      await work();
      setDialog(null);
    } catch (error) {
      setDialogError(errorText(error, t));
    }
  }

  return (
    <div className="conversation-layout" data-computer-open={computerOpen ? 'true' : undefined}>
      <section className="conversation" data-testid="conversation" data-bot-id={bot.id}>
        <ChatHeader
          bot={bot}
          computerOpen={computerOpen}
          onToggleComputer={() => (computerOpen ? closeComputer() : setComputerOpen(true))}
          onRename={() => openDialog({ kind: 'rename-agent' })}
          onDelete={() => openDialog({ kind: 'delete-agent' })}
        />
        <div className="chat-toolbar">
          <SessionPicker
            sessions={list}
            selectedId={selectedId}
            onSelect={(id) => go(id)}
            onNew={() => {
              setDraftNo((n) => n + 1);
              go(NEW_SESSION);
            }}
            onRename={(session) => openDialog({ kind: 'rename-session', session })}
            onClear={(session) => openDialog({ kind: 'clear-session', session })}
            onDelete={(session) => openDialog({ kind: 'delete-session', session })}
          />
        </div>
        {sessions.error !== null && <ErrorBanner message={errorText(sessions.error, t)} onRetry={sessions.reload} />}
        {waitingForList ? (
          <p className="chat-loading">{t.loading}</p>
        ) : (
          <ChatView
            key={`${chatKey}#${epoch}`}
            bot={bot}
            sessionId={selectedId}
            createSession={createSession}
            onActivity={sessions.touch}
            onOpenComputer={() => {
              setComputerOpen(true);
              setTakeoverRequest((n) => n + 1);
            }}
            onHandBack={handBack}
            chatTitle={(id) => {
              const session = list?.find((s) => s.id === id);
              return session ? sessionTitle(session) : null;
            }}
          />
        )}
      </section>
      {computerOpen && (
        <aside className="computer-aside" data-testid="computer-aside" aria-label={t.computer}>
          <div className="computer-aside-head">
            <span>{t.computer}</span>
            <button
              type="button"
              className="icon-button"
              data-testid="computer-close"
              aria-label={t.closeComputer}
              onClick={closeComputer}
            >
              ✕
            </button>
          </div>
          <ComputerPanel ref={computerPanel} botId={bot.id} takeoverRequest={takeoverRequest} />
        </aside>
      )}
      {dialog?.kind === 'rename-session' && (
        <PromptDialog
          title={t.renameChat}
          label={t.chatTitle}
          initial={dialog.session.title || sessionTitle(dialog.session)}
          maxLength={200}
          error={dialogError}
          onClose={() => setDialog(null)}
          onSubmit={(title) => act(async () => sessions.put(await sessionsApi.rename(dialog.session.id, title)))}
        />
      )}
      {dialog?.kind === 'clear-session' && (
        <ConfirmDialog
          title={t.clearChat}
          body={t.clearChatConfirm}
          confirmLabel={t.clearChat}
          danger
          error={dialogError}
          onClose={() => setDialog(null)}
          onConfirm={() =>
            act(async () => {
              await sessionsApi.clear(dialog.session.id);
              setEpoch((n) => n + 1);
            })
          }
        />
      )}
      {dialog?.kind === 'delete-session' && (
        <ConfirmDialog
          title={t.deleteChat}
          body={t.deleteChatConfirm}
          confirmLabel={t.deleteChat}
          danger
          error={dialogError}
          onClose={() => setDialog(null)}
          onConfirm={() =>
            act(async () => {
              await sessionsApi.remove(dialog.session.id);
              sessions.drop(dialog.session.id);
              if (dialog.session.id === selectedId) go(null, true);
            })
          }
        />
      )}
      {dialog?.kind === 'rename-agent' && (
        <PromptDialog
          title={t.renameAgent}
          label={t.agentName}
          initial={bot.name}
          maxLength={80}
          error={dialogError}
          onClose={() => setDialog(null)}
          onSubmit={(name) => act(async () => shell.putBot(await botsApi.update(bot.id, { name })))}
        />
      )}
      {dialog?.kind === 'delete-agent' && (
        <ConfirmDialog
          title={t.deleteAgent}
          body={fill(t.deleteAgentConfirm, { name: bot.name })}
          confirmLabel={t.deleteAgent}
          danger
          error={dialogError}
          onClose={() => setDialog(null)}
          onConfirm={() =>
            act(async () => {
              await botsApi.remove(bot.id);
              router.push('/');
              shell.dropBot(bot.id);
            })
          }
        />
      )}
    </div>
  );
}
