/** kill(2) that treats "no such process" as done: the target may exit at any moment. */
export function sendSignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Signals every member of the process group led by `pgid`. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  sendSignal(-pgid, signal);
}
