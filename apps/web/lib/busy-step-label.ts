import { fill, type Messages } from '../locales';
import type { ActingStepKind } from './agent-status';

/** The steps whose wording can name their argument (an element, a host, a command, a file, seconds). */
const TARGETED = [
  'browser_open',
  'browser_click',
  'browser_type',
  'browser_select',
  'browser_key',
  'browser_tabs',
  'desktop_click',
  'desktop_click_at',
  'desktop_key',
  'shell',
  'command_watch',
  'files_list',
  'file_read',
  'file_write',
  'wait',
  'tool',
] as const satisfies readonly ActingStepKind[];
type TargetedKind = (typeof TARGETED)[number];

function isTargeted(kind: ActingStepKind): kind is TargetedKind {
  return (TARGETED as readonly ActingStepKind[]).includes(kind);
}

/**
 * A tool call under way, in the person's language ("瀏覽器：點擊第 3 項"). The API sends the step as a kind and
 * an argument; a step without its argument, or of a kind that never has one, gets the bare wording.
 */
export function busyStepLabel(step: { kind: ActingStepKind; target?: string }, t: Messages): string {
  const target = step.target?.trim();
  if (target && isTargeted(step.kind)) return fill(t[`busy_${step.kind}_target`], { target });
  return t[`busy_${step.kind}`];
}
