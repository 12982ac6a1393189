'use client';

import { useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useT } from '../lib/i18n';

const MAX_CHARS = 20_000;

interface ComposerProps {
  onSend(text: string): void;
  /** Set while a run of this chat is active: shows the Stop button. */
  onStop?: () => void;
  stopping?: boolean;
  placeholder: string;
}

export function Composer({ onSend, onStop, stopping, placeholder }: ComposerProps) {
  const t = useT();
  const [text, setText] = useState('');
  const area = useRef<HTMLTextAreaElement>(null);

  // Grows with its text up to the CSS max-height, then scrolls.
  useLayoutEffect(() => {
    const el = area.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${el.scrollHeight}px`;
  }, [text]);

  function send() {
    const message = text.trim();
    if (!message) return;
    onSend(message);
    setText('');
    area.current?.focus();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key !== 'Enter' || event.shiftKey) return;
    // Enter that confirms an IME candidate (Chinese, Japanese input) is not a send. Safari reports the
    // confirming Enter with isComposing false but keyCode 229.
    if (event.nativeEvent.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    send();
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    send();
  }

  return (
    <form className="composer" onSubmit={onSubmit}>
      <textarea
        ref={area}
        data-testid="composer"
        className="composer-input"
        value={text}
        rows={1}
        maxLength={MAX_CHARS}
        placeholder={placeholder}
        aria-label={t.composerLabel}
        enterKeyHint="send"
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer-actions">
        {onStop && (
          <button
            type="button"
            className="button button-stop"
            data-testid="stop-button"
            onClick={onStop}
            disabled={stopping}
            aria-label={t.stop}
          >
            <span className="stop-square" aria-hidden="true" />
            <span className="label-wide">{stopping ? t.stopping : t.stop}</span>
          </button>
        )}
        <button type="submit" className="button button-primary send-button" data-testid="send-button" disabled={!text.trim()}>
          {t.send}
        </button>
      </div>
      <p className="composer-hint">{t.composerHint}</p>
    </form>
  );
}
