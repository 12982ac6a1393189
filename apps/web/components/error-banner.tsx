'use client';

import { useT } from '../lib/i18n';

export function ErrorBanner({ message, onRetry }: { message: string; onRetry?: () => void }) {
  const t = useT();
  return (
    <div className="error-banner" role="alert" data-testid="error-banner">
      <span>{message}</span>
      {onRetry && (
        <button type="button" className="button-link" onClick={onRetry}>
          {t.retry}
        </button>
      )}
    </div>
  );
}
