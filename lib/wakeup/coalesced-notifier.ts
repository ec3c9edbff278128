/**
 * Sends at most one notification per window: the first signal at once (low latency), the
 * signals that arrive during the window as one more at its end. Producers never wait for it.
 */
export class CoalescedNotifier {
  private timer?: NodeJS.Timeout;
  private pending = false;

  constructor(
    private readonly windowMs: number,
    private readonly send: () => Promise<void>,
  ) {}

  signal(): void {
    if (this.timer) {
      this.pending = true;
      return;
    }
    this.fire();
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = false;
  }

  private fire(): void {
    this.pending = false;
    void this.send();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.pending) this.fire();
    }, this.windowMs);
    this.timer.unref();
  }
}
