'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import { useRouter, useSearchParams } from 'next/navigation';
import type { AgentView, ChatView } from '@lazyboy/contracts';
import { fill } from '../locales';
import { agents as agentsApi, computers, chats as chatsApi } from '../lib/endpoints';
import { errorText } from '../lib/error-text';
import { useT } from '../lib/i18n';
import { useShell } from '../lib/shell-context';
import { useAgent } from '../lib/use-agent';
import { useChats } from '../lib/use-chats';
import { AgentPending } from './agent-pending';
import { ChatHeader } from './chat-header';
import { ChatPanel } from './chat-panel';
import { ComputerPanel, type ComputerPanelHandle } from './computer-panel';
import { ConfirmDialog, PromptDialog } from './dialog';
import { ErrorBanner } from './error-banner';
import { NEW_CHAT, ChatPicker, useChatTitle } from './chat-picker';

type Dialog = { kind: 'rename-chat' | 'clear-chat' | 'delete-chat'; chat: ChatView } | { kind: 'rename-agent' | 'delete-agent' };

/** A chat's title from its first message: its first line, cut short. */
function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** /agents/[agentId]: the agent's chats (?chat=<id>, or `new` for a chat not written in yet). */
export function AgentConversation({ agentId }: { agentId: string }) {
  const { agent, missing } = useAgent(agentId);
  if (!agent) return <AgentPending missing={missing} />;
  return <AgentChats key={agent.id} agent={agent} />;
}

function AgentChats({ agent }: { agent: AgentView }) {
  const t = useT();
  const router = useRouter();
  const shell = useShell();
  const search = useSearchParams();
  const chats = useChats(agent.id);
  const chatTitle = useChatTitle();
  const [computerOpen, setComputerOpen] = useState(false);
  // Opening the computer from the agent's takeover question also takes over; the header toggle only shows it.
  const [takeoverRequest, setTakeoverRequest] = useState(0);
  const computerPanel = useRef<ComputerPanelHandle>(null);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [dialogError, setDialogError] = useState<string | null>(null);
  const [draftNo, setDraftNo] = useState(0);
  // A draft that created its chat keeps its view (and its messages being sent) under the chat's id.
  const [adopted, setAdopted] = useState<{ chatId: string; key: string } | null>(null);
  // Bumped after a clear: the chat view starts over from the (now empty) chat.
  const [epoch, setEpoch] = useState(0);

  const param = search.get('chat');
  const selectedId = param && param !== NEW_CHAT ? param : null;
  const list = chats.list;

  const go = useCallback(
    (chat: string | null, replace = false) => {
      const url = chat ? `/agents/${agent.id}?chat=${encodeURIComponent(chat)}` : `/agents/${agent.id}`;
      window.history[replace ? 'replaceState' : 'pushState'](null, '', url);
    },
    [agent.id],
  );

  // No chat named: open the most recent one, or a new one when there is none.
  useEffect(() => {
    if (!list) return;
    if (param === null && list[0]) go(list[0].id, true);
    else if (selectedId && !list.some((s) => s.id === selectedId) && adopted?.chatId !== selectedId) go(null, true);
  }, [list, param, selectedId, adopted, go]);

  const draftKey = `draft-${draftNo}`;
  const chatKey = selectedId ? (adopted?.chatId === selectedId ? adopted.key : selectedId) : draftKey;
  const waitingForList = param === null && !list;

  const createChat = useCallback(
    async (firstText: string) => {
      const chat = await chatsApi.create(agent.id, titleFrom(firstText) || undefined);
      chats.put(chat);
      setAdopted({ chatId: chat.id, key: draftKey });
      go(chat.id, true);
      return chat.id;
    },
    [agent.id, chats, draftKey, go],
  );

  function closeComputer() {
    setComputerOpen(false);
    // A later open from the header is only for watching.
    setTakeoverRequest(0);
  }

  /** The open panel stops its input at the view proxy before the release; without it, the release alone does. */
  async function handBack() {
    if (computerPanel.current) await computerPanel.current.handBack();
    else await computers.release(agent.id);
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
      <section className="conversation" data-testid="conversation" data-agent-id={agent.id}>
        <ChatHeader
          agent={agent}
          computerOpen={computerOpen}
          onToggleComputer={() => (computerOpen ? closeComputer() : setComputerOpen(true))}
          onRename={() => openDialog({ kind: 'rename-agent' })}
          onDelete={() => openDialog({ kind: 'delete-agent' })}
        />
        <div className="chat-toolbar">
          <ChatPicker
            chats={list}
            selectedId={selectedId}
            onSelect={(id) => go(id)}
            onNew={() => {
              setDraftNo((n) => n + 1);
              go(NEW_CHAT);
            }}
            onRename={(chat) => openDialog({ kind: 'rename-chat', chat })}
            onClear={(chat) => openDialog({ kind: 'clear-chat', chat })}
            onDelete={(chat) => openDialog({ kind: 'delete-chat', chat })}
          />
        </div>
        {chats.error !== null && <ErrorBanner message={errorText(chats.error, t)} onRetry={chats.reload} />}
        {waitingForList ? (
          <p className="chat-loading">{t.loading}</p>
        ) : (
          <ChatPanel
            key={`${chatKey}#${epoch}`}
            agent={agent}
            chatId={selectedId}
            createChat={createChat}
            onActivity={chats.touch}
            onOpenComputer={() => {
              setComputerOpen(true);
              setTakeoverRequest((n) => n + 1);
            }}
            onHandBack={handBack}
            chatTitle={(id) => {
              const chat = list?.find((s) => s.id === id);
              return chat ? chatTitle(chat) : null;
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
          <ComputerPanel ref={computerPanel} agentId={agent.id} takeoverRequest={takeoverRequest} />
        </aside>
      )}
      {dialog?.kind === 'rename-chat' && (
        <PromptDialog
          title={t.renameChat}
          label={t.chatTitle}
          initial={dialog.chat.title || chatTitle(dialog.chat)}
          maxLength={200}
          error={dialogError}
          onClose={() => setDialog(null)}
          onSubmit={(title) => act(async () => chats.put(await chatsApi.rename(dialog.chat.id, title)))}
        />
      )}
      {dialog?.kind === 'clear-chat' && (
        <ConfirmDialog
          title={t.clearChat}
          body={t.clearChatConfirm}
          confirmLabel={t.clearChat}
          danger
          error={dialogError}
          onClose={() => setDialog(null)}
          onConfirm={() =>
            act(async () => {
              await chatsApi.clear(dialog.chat.id);
              setEpoch((n) => n + 1);
            })
          }
        />
      )}
      {dialog?.kind === 'delete-chat' && (
        <ConfirmDialog
          title={t.deleteChat}
          body={t.deleteChatConfirm}
          confirmLabel={t.deleteChat}
          danger
          error={dialogError}
          onClose={() => setDialog(null)}
          onConfirm={() =>
            act(async () => {
              await chatsApi.remove(dialog.chat.id);
              chats.drop(dialog.chat.id);
              if (dialog.chat.id === selectedId) go(null, true);
            })
          }
        />
      )}
      {dialog?.kind === 'rename-agent' && (
        <PromptDialog
          title={t.renameAgent}
          label={t.agentName}
          initial={agent.name}
          maxLength={80}
          error={dialogError}
          onClose={() => setDialog(null)}
          onSubmit={(name) => act(async () => shell.putAgent(await agentsApi.update(agent.id, { name })))}
        />
      )}
      {dialog?.kind === 'delete-agent' && (
        <ConfirmDialog
          title={t.deleteAgent}
          body={fill(t.deleteAgentConfirm, { name: agent.name })}
          confirmLabel={t.deleteAgent}
          danger
          error={dialogError}
          onClose={() => setDialog(null)}
          onConfirm={() =>
            act(async () => {
              await agentsApi.remove(agent.id);
              router.push('/');
              shell.dropAgent(agent.id);
            })
          }
        />
      )}
    </div>
  );
}
