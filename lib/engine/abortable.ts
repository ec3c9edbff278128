/**
 * Calls `listener` once when `signal` aborts — at once, synchronously, when it has aborted
 * already — and returns a function that removes the listener.
 *
 * NOTE: `addEventListener('abort', …)` on a signal that has already aborted never fires. Every
 * wait in QueueBox registers through here, so a `stop()` that lands between a check of
 * `signal.aborted` and the registration of a wait cannot leave that wait running its full course.
 */
export function whenAborted(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return () => undefined;
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

/** Resolves after `ms`, or as soon as `signal` aborts (at once if it already has). Never rejects. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let dispose = (): void => undefined;
    const timer = setTimeout(() => {
      dispose();
      resolve();
    }, ms);
    dispose = whenAborted(signal, () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
