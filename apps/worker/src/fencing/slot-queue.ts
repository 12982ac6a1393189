/**
 * One call at a time per slot: two actions interleaving on one page (a click landing while another call
 * types) would each see a screen the other changed, and the fence check just before acting would mean
 * nothing if an older call were still running.
 */
export class SlotQueue {
  private readonly tails = new Map<number, Promise<unknown>>();

  run<T>(slot: number, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(slot) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.catch(() => undefined);
    this.tails.set(slot, tail);
    void tail.then(() => {
      if (this.tails.get(slot) === tail) this.tails.delete(slot);
    });
    return next;
  }
}
