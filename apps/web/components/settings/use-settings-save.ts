'use client';

import { useState, type FormEvent } from 'react';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';

interface SettingsSaveOptions<T> {
  /** Whether the form may be saved now (changed, and complete). */
  canSave: boolean;
  save(): Promise<T>;
  /** The saved result: the section takes its values from it. */
  onSaved(result: T): void;
}

export interface SettingsSave {
  /** The request under way: 'save', or what `run` was given; null when none is. */
  pending: string | null;
  saved: boolean;
  error: string | null;
  /** The form's submit handler. */
  submit(event: FormEvent): Promise<void>;
  /** A value was edited: "Saved" no longer speaks for it. */
  markDirty(): void;
  /** Another request of the section (a test), under the same busy state and error line. */
  run(action: string, work: () => Promise<void>): Promise<void>;
}

/** A settings section's save: one request at a time, "Saved" after it, the error worded for the person. */
export function useSettingsSave<T>({ canSave, save, onSaved }: SettingsSaveOptions<T>): SettingsSave {
  const t = useT();
  const [pending, setPending] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function run(action: string, work: () => Promise<void>) {
    setPending(action);
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(errorText(failure, t));
    } finally {
      setPending(null);
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!canSave || pending !== null) return;
    setSaved(false);
    await run('save', async () => {
      onSaved(await save());
      setSaved(true);
    });
  }

  return { pending, saved, error, submit, markDirty: () => setSaved(false), run };
}
