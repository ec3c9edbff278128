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

  /** Sends nothing more and waits for a send in progress (before the pool it uses closes). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = false;
    await Promise.allSettled(this.sending);
  }

  private fire(): void {
    this.pending = false;
    const sent = this.send().finally(() => this.sending.delete(sent));
    this.sending.add(sent);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.pending && !this.closed) this.fire();
    }, this.windowMs);
    this.timer.unref();
  }
}
