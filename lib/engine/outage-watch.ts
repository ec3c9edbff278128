/** How often the watch asks whether the database answers again, while a loop waits for it. */
export const OUTAGE_PROBE_MS = 200;

interface Waiter {
  resume(): void;
  signal: AbortSignal;
  /** A probe failed since the waiter came: the database was out. */
  sawOutage: boolean;
}

/**
 * Tells loops whose tick failed when the database answers again after an outage, so that they
 * resume within a probe interval instead of sleeping out their error back-off (up to 30 s).
 *
 * One probe at a time for the whole instance, every `OUTAGE_PROBE_MS`, and only while a loop
 * waits: a cheap statement whose failure costs a refused connection. A waiter is resumed at the
 * first answer that follows a failed probe; when the first probe after its failure answers, the
 * database was not out (the tick failed for another reason), and the waiter is dropped: its loop
 * backs off as usual, instead of retrying at the probe's pace.
 */
export class OutageWatch {
  private waiters: Waiter[] = [];
  private probing = false;

  constructor(private readonly probe: () => Promise<unknown>) {}

  /** Calls `resume` once the database answers after an outage; never once `signal` has aborted. */
  afterOutage(resume: () => void, signal: AbortSignal): void {
    if (signal.aborted) return;
    this.waiters.push({ resume, signal, sawOutage: false });
    if (!this.probing) void this.watch();
  }

  private async watch(): Promise<void> {
    this.probing = true;
    try {
      for (;;) {
        this.waiters = this.waiters.filter((waiter) => !waiter.signal.aborted);
        if (this.waiters.length === 0) return;
        const answered = await this.probe().then(
          () => true,
          () => false,
        );
        if (answered) {
          const waiters = this.waiters;
          this.waiters = [];
          for (const waiter of waiters) if (waiter.sawOutage && !waiter.signal.aborted) waiter.resume();
        } else {
          for (const waiter of this.waiters) waiter.sawOutage = true;
          await new Promise((resolve) => setTimeout(resolve, OUTAGE_PROBE_MS).unref());
        }
      }
    } finally {
      this.probing = false;
    }
  }
}
