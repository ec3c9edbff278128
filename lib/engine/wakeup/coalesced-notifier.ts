/**
 * Sends at most one notification per window: the first signal at once (low latency), the
 * signals that arrive during the window as one more at its end. Producers never wait for it.
 */
export class CoalescedNotifier {
  private timer?: NodeJS.Timeout;
  private pending = false;
  private closed = false;
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly windowMs: number,
    private readonly send: () => Promise<void>,
  ) {}

  signal(): void {
    if (this.closed) return;
    if (this.timer) {
      this.pending = true;
      return;
    }
    this.fire();
  }

  /**
   * Takes the leading edge for a wake-up the caller delivers itself (with its transaction's commit):
   * true when no window is open, and one opens now, as if a notification had been sent; false
   * while one is open (the caller then signals after its commit, as usual).
   */
  lead(): boolean {
    if (this.closed || this.timer) return false;
    this.openWindow();
    return true;
  }

  /**
   * Sends the signal still waiting in the window at once (rows committed in the last moments
   * must not wait a poll interval on the other replicas), then sends nothing more, and waits
   * for every send in progress: the pool it uses closes after this.
   */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const flush = this.pending && !this.closed;
    this.closed = true;
    if (flush) this.sendNow();
    await Promise.allSettled(this.sending);
  }

  private fire(): void {
    this.sendNow();
    this.openWindow();
  }

  private openWindow(): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.pending && !this.closed) this.fire();
    }, this.windowMs);
    this.timer.unref();
  }

  private sendNow(): void {
    this.pending = false;
    const sent = this.send().finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }
}
