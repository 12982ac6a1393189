import { BUSY_STEP_KINDS_WITH_TARGET, type BusyStepKindWithTarget } from '@lazyboy/contracts';
import { fill, type Messages } from '../locales';
import type { ActingStepKind } from './agent-status';

function hasTarget(kind: ActingStepKind): kind is BusyStepKindWithTarget {
  return (BUSY_STEP_KINDS_WITH_TARGET as readonly ActingStepKind[]).includes(kind);
}

/**
 * A tool call under way, in the person's language ("瀏覽器：點擊第 3 項"). The API sends the step as a kind and
 * an argument; a step without its argument, or of a kind that never has one, gets the bare wording.
 */
export function busyStepLabel(step: { kind: ActingStepKind; target?: string }, t: Messages): string {
  const target = step.target?.trim();
  if (target && hasTarget(step.kind)) return fill(t[`busy_${step.kind}_target`], { target });
  return t[`busy_${step.kind}`];
}
