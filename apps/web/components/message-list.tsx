'use client';

import { useLayoutEffect, useRef, type ReactNode } from 'react';
import type { AgentView, MessageView } from '@lazyboy/contracts';
import type { PendingMessage } from '../lib/chat-state';
import { formatMessageTime } from '../lib/format';
import { useLocale, useT } from '../lib/i18n';
import { Blobatar } from './blobatar';
import { MessageText } from './message-text';
import { RunNotice } from './run-notice';

interface MessageListProps {
  agent: AgentView;
  messages: readonly MessageView[];
  pending: readonly PendingMessage[];
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder(): void;
  onRetry(message: PendingMessage): void;
  /** Shown after the last message: plan, pending question, busy line. */
  children?: ReactNode;
  /** Changes whenever the tail changes, so the list follows it like a new message. */
  tailKey: string;
}

/** How close to the bottom still counts as "reading the latest": the list then follows new messages. */
const STICK_PX = 96;

export function MessageList({
  agent,
  messages,
  pending,
  hasOlder,
  loadingOlder,
  onLoadOlder,
  onRetry,
  children,
  tailKey,
}: MessageListProps) {
  const t = useT();
  const locale = useLocale();
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const before = useRef<{ firstId: string | undefined; height: number }>({ firstId: undefined, height: 0 });
  // Tool results are the agent's own working data, not conversation.
  const visible = messages.filter((m) => m.role !== 'tool');
  const firstId = visible[0]?.id;

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const previous = before.current;
    if (stick.current) el.scrollTop = el.scrollHeight;
    else if (previous.firstId !== undefined && firstId !== previous.firstId) {
      // Older messages were put above: keep the ones being read where they were.
      el.scrollTop += el.scrollHeight - previous.height;
    }
    before.current = { firstId, height: el.scrollHeight };
  }, [firstId, visible.length, pending.length, tailKey]);

  return (
    <div
      className="message-scroller"
      role="log"
      ref={scroller}
      data-testid="message-list"
      onScroll={(event) => {
        const el = event.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
        before.current = { firstId, height: el.scrollHeight };
      }}
    >
      <div className="message-column">
        {hasOlder && (
          <button type="button" className="button button-quiet load-older" onClick={onLoadOlder} disabled={loadingOlder}>
            {loadingOlder ? t.loading : t.loadOlder}
          </button>
        )}
        {visible.map((message) => (
          <article
            key={message.id}
            className={`message message-${message.role}${message.progress ? ' message-progress' : ''}`}
            data-testid="message"
            data-role={message.role}
            data-message-id={message.id}
            data-progress={message.progress ? 'true' : undefined}
            data-notice={message.notice?.code}
          >
            {message.role === 'assistant' && <Blobatar seed={agent.avatarSeed} size={28} className="message-avatar" />}
            <div className="message-body">
              {message.progress && <span className="message-kicker">{t.progressNote}</span>}
              <div className="bubble">
                {message.notice ? <RunNotice notice={message.notice} agentId={agent.id} /> : <MessageText text={message.text} />}
              </div>
              <time className="message-meta" dateTime={message.createdAt}>
                {formatMessageTime(message.createdAt, locale)}
              </time>
            </div>
          </article>
        ))}
        {pending.map((message) => (
          <article
            key={message.clientNonce}
            className="message message-user message-pending"
            data-testid="message"
            data-role="user"
            data-state={message.state}
            data-client-nonce={message.clientNonce}
          >
            <div className="message-body">
              <div className="bubble">
                <MessageText text={message.text} />
              </div>
              {message.state === 'sending' ? (
                <span className="message-meta">{t.sending}</span>
              ) : (
                <span className="message-meta message-failed" role="alert">
                  {message.error ?? t.sendFailed}{' '}
                  <button type="button" className="button-link" data-testid="message-retry" onClick={() => onRetry(message)}>
                    {t.retry}
                  </button>
                </span>
              )}
            </div>
          </article>
        ))}
        {children}
      </div>
    </div>
  );
}
