'use client';

import type { PlanStepView } from '@lazyboy/contracts';
import { useT } from '../lib/i18n';

const MARK: Record<PlanStepView['status'], string> = { done: '✓', active: '●', pending: '○', dropped: '–' };

/** The active run's plan, as the agent keeps it up to date. */
export function PlanChecklist({ steps }: { steps: readonly PlanStepView[] }) {
  const t = useT();
  if (steps.length === 0) return null;
  const done = steps.filter((s) => s.status === 'done').length;
  const counted = steps.filter((s) => s.status !== 'dropped').length;
  return (
    <section className="plan" data-testid="plan" aria-label={t.plan}>
      <header className="plan-head">
        <span>{t.plan}</span>
        <span className="plan-count">
          {done}/{counted}
        </span>
      </header>
      <ol className="plan-steps">
        {steps.map((step, i) => (
          <li
            key={`${i}-${step.title}`}
            className={`plan-step plan-step-${step.status}`}
            data-testid="plan-step"
            data-status={step.status}
          >
            <span className="plan-mark" aria-hidden="true">
              {MARK[step.status]}
            </span>
            <span>{step.title}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
