'use client';

import type { ReactNode } from 'react';
import { ApiError } from '../../lib/api';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';
import { ErrorBanner } from '../error-banner';

interface AdminSectionProps {
  id: string;
  title: string;
  loading: boolean;
  error: unknown;
  onRefresh(): void;
  /** Filters and the like, beside the refresh button. */
  tools?: ReactNode;
  children: ReactNode;
}

export function AdminSection({ id, title, loading, error, onRefresh, tools, children }: AdminSectionProps) {
  const t = useT();
  const forbidden = error instanceof ApiError && error.status === 403;
  return (
    <section className="admin-section" id={id} aria-labelledby={`${id}-title`}>
      <header className="admin-section-head">
        <h2 id={`${id}-title`}>{title}</h2>
        <div className="admin-tools">
          {tools}
          <button type="button" className="button button-small" onClick={onRefresh} disabled={loading}>
            {loading ? t.loading : t.refresh}
          </button>
        </div>
      </header>
      {error !== null && error !== undefined && (
        <ErrorBanner message={forbidden ? t.adminForbidden : errorText(error, t)} onRetry={forbidden ? undefined : onRefresh} />
      )}
      <div className="table-scroll">{children}</div>
    </section>
  );
}
