/**
 * Resolves once `task` settles (its failure logged) or `ms` have passed, whichever is first: a step of
 * stopping that must not hold up the next (a frozen browser's CDP client never answering).
 */
export function settledWithin(task: Promise<unknown>, ms: number, log: (line: string) => void): Promise<void> {
  const logged = task.then(
    () => undefined,
    (error: unknown) => log(error instanceof Error ? (error.stack ?? error.message) : String(error)),
  );
  return Promise.race([logged, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
}
