import type { ToolOutcome } from '../tool.js';

/**
 * What the model can do about a refusal both transports report (the worker's codes, which the CLI's
 * in-process transport uses too); codes without an entry are self-explanatory.
 */
export const COMPUTER_ERROR_HINTS: Readonly<Record<string, string>> = {
  STALE_ELEMENT: 'observe again and use the number the element has now, if it is still there',
  ELEMENT_NOT_FOUND: 'use a number an observation shows: observe to see them',
  ELEMENT_NOT_INTERACTABLE:
    'it cannot be used right now (hidden, covered or disabled): scroll to it, close what covers it, or pick another',
  PAGE_UNRESPONSIVE: 'observe to see where the tab is now, then try again or go to another page',
  PATH_OUTSIDE_HOME: 'paths are relative to the home folder and must stay inside it',
  UNKNOWN_COMMAND: 'use the number the shell tool gave for a command still running',
};

/** A refusal as the model reads it: the code, the message, and what to do about it. */
export function refusalOutcome(
  code: string,
  message: string,
  hints: Readonly<Record<string, string>> = COMPUTER_ERROR_HINTS,
): ToolOutcome {
  const hint = hints[code];
  return { content: `${code}: ${message}${hint ? ` (${hint})` : ''}`, isError: true };
}
