import type { ToolContext, ToolOutcome } from './tool.js';

/** How long a command may hold the loop before it continues in the background (seed 003). */
export const DEFAULT_BLOCK_UNTIL_MS = 30_000;

/**
 * Waits for `work` up to `blockUntilMs`; if it is still running then, hands it to the runtime as a
 * background job and returns at once, telling the model the job id (the model hears again when the job
 * finishes). For command-like tools (shell, long downloads).
 */
export async function backgroundAfter(
  context: ToolContext,
  description: string,
  work: Promise<ToolOutcome>,
  blockUntilMs = DEFAULT_BLOCK_UNTIL_MS,
): Promise<ToolOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), blockUntilMs);
  });
  try {
    const finished = await Promise.race([work, deadline]);
    if (finished) return finished;
  } finally {
    clearTimeout(timer);
  }
  const id = context.background(description, work);
  return {
    content: `still running after ${Math.round(blockUntilMs / 1000)} s; it continues in the background as ${id}. You will be told when it finishes: do not poll.`,
    state: { [`job:${id}`]: description },
  };
}
