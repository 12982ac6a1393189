'use client';

import { useId, useState, type FormEvent } from 'react';
import { useT } from '../../lib/i18n';

interface PastePromptProps {
  onSend(text: string): void;
  onCancel(): void;
}

/** For when the browser will not hand over its clipboard (refused, or a plain-http page): paste it here instead. */
export function PastePrompt({ onSend, onCancel }: PastePromptProps) {
  const t = useT();
  const id = useId();
  const [text, setText] = useState('');

  function submit(event: FormEvent) {
    event.preventDefault();
    if (text) onSend(text);
  }

  return (
    <form className="paste-prompt" data-testid="paste-prompt" onSubmit={submit}>
      <label className="field-label" htmlFor={id}>
        {t.computerPasteLabel}
      </label>
      <textarea
        id={id}
        data-testid="paste-text"
        rows={3}
        autoFocus
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
      <div className="form-actions">
        <button type="button" className="button button-small button-quiet" onClick={onCancel}>
          {t.cancel}
        </button>
        <button type="submit" className="button button-small button-primary" data-testid="paste-send" disabled={!text}>
          {t.computerPasteSend}
        </button>
      </div>
    </form>
  );
}
