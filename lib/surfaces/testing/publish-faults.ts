import { UnknownDestinationError } from '../../shared/errors/unknown-destination.error.js';
import { InvalidArgumentError } from '../../shared/errors/invalid-argument.error.js';
import type { OutboxMessage } from '../../shared/interfaces/outbox-message.interface.js';
import type { OutboxPublisher, PublishContext } from '../../shared/interfaces/outbox-publisher.interface.js';
import { unknownDestination } from '../../shared/queuebox.messages.js';
import { queueBoxInternals, type QueueBoxTestApp } from './queuebox-app.js';
import { injectedPublishFailure, invalidFaultCount } from './testing.messages.js';

/** The failures still to inject into one destination's publishes. @publicApi */
export interface PublishFaults {
  /** Publishes that will still fail. */
  readonly remaining: number;
  /** Publishes failed so far by this injection. */
  readonly failed: number;
}

/** What a failing publish throws: an error, or a function of the failure's number (1-based). */
export type InjectedFailure = Error | ((n: number) => Error);

/** Wraps a destination's publisher: the next `remaining` publishes throw instead of publishing. */
class FaultInjectingPublisher implements OutboxPublisher, PublishFaults {
  remaining = 0;
  failed = 0;
  private total = 0;
  private failure?: InjectedFailure;

  constructor(
    private readonly destination: string,
    private readonly inner: OutboxPublisher,
  ) {}

  add(count: number, failure?: InjectedFailure): void {
    this.remaining += count;
    this.total += count;
    this.failure = failure ?? this.failure;
  }

  async publish(message: OutboxMessage, context: PublishContext): Promise<void> {
    if (this.remaining === 0) return this.inner.publish(message, context);
    this.remaining -= 1;
    this.failed += 1;
    const failure = this.failure;
    throw typeof failure === 'function'
      ? failure(this.failed)
      : (failure ?? new Error(injectedPublishFailure(this.destination, this.failed, this.total)));
  }
}

const injected = new WeakMap<object, Map<string, FaultInjectingPublisher>>();

/**
 * Makes the next `count` publishes of `destination` fail (by default with a plain `Error`: a
 * retryable failure; pass a `PublishFailedError` to say otherwise), then lets publishes through
 * to the destination's own publisher. Works for every destination type. Calling it again adds to
 * the count. The failed rows are retried with the configured backoff:
 * `drain(app, { includeScheduled: true })` waits for those retries too.
 * @publicApi
 */
export function failNextPublishes(
  app: QueueBoxTestApp,
  destination: string,
  count: number,
  failure?: InjectedFailure,
): PublishFaults {
  if (!Number.isInteger(count) || count < 1) throw new InvalidArgumentError('count', invalidFaultCount(count));
  const { publishers } = queueBoxInternals(app, 'failNextPublishes()');
  const byDestination = injected.get(publishers) ?? new Map<string, FaultInjectingPublisher>();
  injected.set(publishers, byDestination);
  let faults = byDestination.get(destination);
  if (!faults) {
    const wrapped = publishers.wrap(destination, (inner) => (faults = new FaultInjectingPublisher(destination, inner)));
    if (!wrapped || !faults)
      throw new UnknownDestinationError(destination, unknownDestination(destination, publishers.names()));
    byDestination.set(destination, faults);
  }
  faults.add(count, failure);
  return faults;
}
