'use client';

import { fill } from '../locales';
import { useT } from '../lib/i18n';

/** The provider's own words (already free of the key), marked as theirs: not translated, shown as sent. */
export function ProviderText({ text, status }: { text: string; status: number | null }) {
  const t = useT();
  return (
    <span className="provider-text" data-testid="provider-text">
      <span className="provider-text-label">{status ? fill(t.modelProviderSaidStatus, { status }) : t.modelProviderSaid}</span>{' '}
      <q>{text}</q>
    </span>
  );
}
