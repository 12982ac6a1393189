'use client';

import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useT } from '../lib/i18n';

interface DialogFrameProps {
  title: string;
  testId: string;
  onClose(): void;
  children: ReactNode;
}

/** A modal on the native <dialog>: focus trap, Escape and the backdrop come with it. */
export function DialogFrame({ title, testId, onClose, children }: DialogFrameProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog"
      data-testid={testId}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId} className="dialog-title">
        {title}
      </h2>
      {children}
    </dialog>
  );
}

interface ConfirmDialogProps {
  title: string;
  body: string;
  confirmLabel: string;
  danger?: boolean;
  onConfirm(): Promise<void> | void;
  onClose(): void;
  error?: string | null;
}

export function ConfirmDialog({ title, body, confirmLabel, danger, onConfirm, onClose, error }: ConfirmDialogProps) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  return (
    <DialogFrame title={title} testId="confirm-dialog" onClose={onClose}>
      <p className="dialog-body">{body}</p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="form-actions">
        <button type="button" className="button button-quiet" data-testid="confirm-cancel" onClick={onClose}>
          {t.cancel}
        </button>
        <button
          type="button"
          className={danger ? 'button button-danger' : 'button button-primary'}
          data-testid="confirm-ok"
          disabled={busy}
          autoFocus
          onClick={() => {
            setBusy(true);
            void Promise.resolve(onConfirm()).finally(() => setBusy(false));
          }}
        >
          {confirmLabel}
        </button>
      </div>
    </DialogFrame>
  );
}

interface PromptDialogProps {
  title: string;
  label: string;
  initial: string;
  maxLength: number;
  onSubmit(value: string): Promise<void> | void;
  onClose(): void;
  error?: string | null;
}

/** Asks for one line of text (a new name). */
export function PromptDialog({ title, label, initial, maxLength, onSubmit, onClose, error }: PromptDialogProps) {
  const t = useT();
  const [value, setValue] = useState(initial);
  const [busy, setBusy] = useState(false);
  const inputId = useId();

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = value.trim();
    if (!trimmed) return;
    setBusy(true);
    void Promise.resolve(onSubmit(trimmed)).finally(() => setBusy(false));
  }

  return (
    <DialogFrame title={title} testId="prompt-dialog" onClose={onClose}>
      <form onSubmit={submit} className="dialog-form">
        <label htmlFor={inputId} className="field-label">
          {label}
        </label>
        <input
          id={inputId}
          data-testid="prompt-input"
          value={value}
          maxLength={maxLength}
          autoFocus
          onChange={(event) => setValue(event.target.value)}
        />
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="form-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>
            {t.cancel}
          </button>
          <button type="submit" className="button button-primary" data-testid="prompt-ok" disabled={busy || !value.trim()}>
            {t.save}
          </button>
        </div>
      </form>
    </DialogFrame>
  );
}
