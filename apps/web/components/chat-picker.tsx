'use client';

import { useId } from 'react';
import type { ChatView } from '@lazyboy/contracts';
import { fill } from '../locales';
import { formatDateTime } from '../lib/format';
import { useLocale, useT } from '../lib/i18n';
import { Menu } from './menu';

export const NEW_CHAT = 'new';

interface ChatPickerProps {
  chats: readonly ChatView[] | null;
  /** null: a new chat not written in yet. */
  selectedId: string | null;
  onSelect(chatId: string): void;
  onNew(): void;
  onRename(chat: ChatView): void;
  onClear(chat: ChatView): void;
  onDelete(chat: ChatView): void;
}

export function useChatTitle(): (chat: ChatView) => string {
  const t = useT();
  const locale = useLocale();
  return (chat) => chat.title.trim() || fill(t.untitledChat, { date: formatDateTime(chat.createdAt, locale) });
}

export function ChatPicker({ chats, selectedId, onSelect, onNew, onRename, onClear, onDelete }: ChatPickerProps) {
  const t = useT();
  const title = useChatTitle();
  const selectId = useId();
  const selected = chats?.find((s) => s.id === selectedId) ?? null;
  return (
    <div className="chat-picker">
      <label htmlFor={selectId} className="visually-hidden">
        {t.chats}
      </label>
      <select
        id={selectId}
        data-testid="chat-select"
        value={selectedId ?? NEW_CHAT}
        onChange={(event) => (event.target.value === NEW_CHAT ? onNew() : onSelect(event.target.value))}
      >
        {!selectedId && <option value={NEW_CHAT}>{t.newChat}</option>}
        {selectedId && !selected && <option value={selectedId}>{t.loading}</option>}
        {(chats ?? []).map((chat) => (
          <option key={chat.id} value={chat.id}>
            {title(chat)}
          </option>
        ))}
      </select>
      <button type="button" className="button button-small" data-testid="chat-new" onClick={onNew} disabled={!selectedId}>
        ＋ {t.newChat}
      </button>
      <Menu trigger="⋯" label={t.chatActions} testId="chat-menu">
        <button type="button" data-testid="chat-rename" disabled={!selected} onClick={() => selected && onRename(selected)}>
          {t.renameChat}
        </button>
        <button type="button" data-testid="chat-clear" disabled={!selected} onClick={() => selected && onClear(selected)}>
          {t.clearChat}
        </button>
        <button
          type="button"
          className="danger"
          data-testid="chat-delete"
          disabled={!selected}
          onClick={() => selected && onDelete(selected)}
        >
          {t.deleteChat}
        </button>
      </Menu>
    </div>
  );
}
