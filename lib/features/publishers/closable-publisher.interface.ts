import type { OutboxPublisher } from '../../shared/interfaces/outbox-publisher.interface.js';

/** A built-in publisher that holds a broker connection, closed by the registry at shutdown. */
export interface ClosablePublisher extends OutboxPublisher {
  close(): Promise<void>;
}
