import type { ResolvedDestination } from './resolved-options.interface.js';

/**
 * AMQP headers RabbitMQ reads as routing instructions (sender-selected distribution): arrays of
 * extra routing keys. As the strings message headers are, they make the broker close the
 * channel, and every publish in flight on it, a message's neighbours included, fails with it.
 */
const AMQP_ROUTING_HEADERS = new Set(['cc', 'bcc']);
/** JetStream reads `Nats-*` headers as instructions: rollups that purge a subject, expected sequences, TTLs, message ids. */
const NATS_CONTROL_PREFIX = 'nats-';

/**
 * Why a message header cannot go to `destination`, or undefined. Names are compared in any case.
 * - `http`: a header the destination sets itself (its `headers` option: `Authorization`, an API
 *   key), which a message must not replace.
 * - `rabbitmq`: `CC` and `BCC`.
 * - `nats`: any `Nats-*` header.
 * Custom publishers get every header: what they mean is theirs to say.
 */
export function destinationHeaderProblem(destination: ResolvedDestination, name: string): string | undefined {
  const lower = name.toLowerCase();
  switch (destination.type) {
    case 'http':
      return Object.keys(destination.headers).some((own) => own.toLowerCase() === lower)
        ? `is set by the destination itself (its "headers" option), and a message cannot replace it`
        : undefined;
    case 'rabbitmq':
      return AMQP_ROUTING_HEADERS.has(lower)
        ? 'is read by RabbitMQ as extra routing keys, and as a string it makes the broker close the channel'
        : undefined;
    case 'nats':
      return lower.startsWith(NATS_CONTROL_PREFIX)
        ? 'is a JetStream control header (Nats-*), which a message cannot set'
        : undefined;
    default:
      return undefined;
  }
}

/** The first header of `headers` that cannot go to `destination`, with why; undefined when all can. */
export function refusedDestinationHeader(
  destination: ResolvedDestination,
  headers: Readonly<Record<string, string>>,
): { name: string; problem: string } | undefined {
  for (const name of Object.keys(headers)) {
    const problem = destinationHeaderProblem(destination, name);
    if (problem) return { name, problem };
  }
  return undefined;
}
