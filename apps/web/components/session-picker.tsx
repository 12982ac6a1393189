'use client';

import { useId } from 'react';
import type { SessionView } from '@lazyboy/contracts';
import { fill } from '../locales';
import { formatDateTime } from '../lib/format';
import { useLocale, useT } from '../lib/i18n';
import { Menu } from './menu';

export const NEW_SESSION = 'new';

interface SessionPickerProps {
  sessions: readonly SessionView[] | null;
  /** null: a new chat not written in yet. */
  selectedId: string | null;
  onSelect(sessionId: string): void;
  onNew(): void;
  onRename(session: SessionView): void;
  onClear(session: SessionView): void;
  onDelete(session: SessionView): void;
}

export function useSessionTitle(): (session: SessionView) => string {
  const t = useT();
  const locale = useLocale();
  return (session) => session.title.trim() || fill(t.untitledChat, { date: formatDateTime(session.createdAt, locale) });
}

export function SessionPicker({ sessions, selectedId, onSelect, onNew, onRename, onClear, onDelete }: SessionPickerProps) {
  const t = useT();
  const title = useSessionTitle();
  const selectId = useId();
  const selected = sessions?.find((s) => s.id === selectedId) ?? null;
  return (
    <div className="session-picker">
      <label htmlFor={selectId} className="visually-hidden">
        {t.chats}
      </label>
      <select
        id={selectId}
        data-testid="session-select"
        value={selectedId ?? NEW_SESSION}
        onChange={(event) => (event.target.value === NEW_SESSION ? onNew() : onSelect(event.target.value))}
      >
        {!selectedId && <option value={NEW_SESSION}>{t.newChat}</option>}
        {selectedId && !selected && <option value={selectedId}>{t.loading}</option>}
        {(sessions ?? []).map((session) => (
          <option key={session.id} value={session.id}>
            {title(session)}
          </option>
        ))}
      </select>
      <button type="button" className="button button-small" data-testid="session-new" onClick={onNew} disabled={!selectedId}>
        ＋ {t.newChat}
      </button>
      <Menu trigger="⋯" label={t.chatActions} testId="session-menu">
        <button type="button" data-testid="session-rename" disabled={!selected} onClick={() => selected && onRename(selected)}>
          {t.renameChat}
        </button>
        <button type="button" data-testid="session-clear" disabled={!selected} onClick={() => selected && onClear(selected)}>
          {t.clearChat}
        </button>
        <button
          type="button"
          className="danger"
          data-testid="session-delete"
          disabled={!selected}
          onClick={() => selected && onDelete(selected)}
        >
          {t.deleteChat}
        </button>
      </Menu>
    </div>
  );
}
