/** Why `awaitWithin` stopped waiting: the signal aborted, or the time ran out. */
export class WaitEndedError extends Error {
  constructor(readonly reason: 'aborted' | 'timed out') {
    super(reason);
    this.name = 'WaitEndedError';
  }
}

/**
 * Waits for `work` until the signal aborts or `timeoutMs` passes, whichever comes first, then
 * rejects with `WaitEndedError`. `work` itself goes on (a broker client cannot take back a frame
 * it has written); its late outcome is ignored.
 */
export function awaitWithin<T>(work: Promise<T>, signal: AbortSignal, timeoutMs?: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const end = (reason: 'aborted' | 'timed out'): void => {
      stop();
      reject(new WaitEndedError(reason));
    };
    const onAbort = (): void => end('aborted');
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => end('timed out'), timeoutMs);
    const stop = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        stop();
        resolve(value);
      },
      (error: unknown) => {
        stop();
        reject(error);
      },
    );
  });
}
