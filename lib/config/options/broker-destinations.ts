import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import { invalidOption } from '../../shared/queuebox.messages.js';
import { readBoolean, readInt, readServiceUrl } from './option-readers.js';
import type { ResolvedDestination } from './resolved-options.interface.js';

const DAY_MS = 86_400_000;
/** AMQP 0-9-1 exchange names and routing keys are short strings: 255 bytes at most. */
const AMQP_SHORTSTR_BYTES = 255;
const MAX_NATS_SERVERS = 100;

type RabbitMqDestination = Extract<ResolvedDestination, { type: 'rabbitmq' }>;
type NatsDestination = Extract<ResolvedDestination, { type: 'nats' }>;

/** Validates a `type: 'rabbitmq'` destination. The URL is never echoed: it may hold a password. */
export function resolveRabbitMqDestination(
  name: string,
  destination: Record<string, unknown>,
  path: string,
): RabbitMqDestination {
  const url = readServiceUrl(destination.url, `${path}.url`, ['amqp:', 'amqps:'], 'an amqp:// or amqps:// URL');
  const exchange = readShortString(destination.exchange, `${path}.exchange`);
  return {
    type: 'rabbitmq',
    name,
    url,
    exchange,
    // The destination name by default: with the default exchange ('') it names the queue.
    routingKey: readShortString(destination.routingKey, `${path}.routingKey`, name),
    persistent: readBoolean(destination.persistent, `${path}.persistent`, true),
    confirmTimeoutMs: readInt(destination.confirmTimeoutMs, `${path}.confirmTimeoutMs`, 10_000, 1, DAY_MS),
  };
}

/** Validates a `type: 'nats'` destination. Server addresses are never echoed. */
export function resolveNatsDestination(
  name: string,
  destination: Record<string, unknown>,
  path: string,
): NatsDestination {
  const given = destination.servers;
  const list = typeof given === 'string' ? [given] : given;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_NATS_SERVERS) {
    throw new InvalidQueueBoxOptionsError(
      `${path}.servers`,
      invalidOption(`${path}.servers`, given, `a server address or an array of 1 to ${MAX_NATS_SERVERS} of them`),
    );
  }
  const servers = list.map((server: unknown, i) =>
    readServiceUrl(
      server,
      typeof given === 'string' ? `${path}.servers` : `${path}.servers.${i}`,
      ['nats:', 'tls:'],
      'a NATS server address: host:port, nats://host:port or tls://host:port',
    ),
  );
  return {
    type: 'nats',
    name,
    servers,
    subject: readSubject(destination.subject, `${path}.subject`),
    timeoutMs: readInt(destination.timeoutMs, `${path}.timeoutMs`, 10_000, 1, DAY_MS),
  };
}

/** A string of at most 255 bytes, empty allowed; required when there is no fallback. */
function readShortString(value: unknown, path: string, fallback?: string): string {
  if (value === undefined && fallback !== undefined) value = fallback;
  if (typeof value !== 'string' || Buffer.byteLength(value, 'utf8') > AMQP_SHORTSTR_BYTES) {
    throw new InvalidQueueBoxOptionsError(
      path,
      invalidOption(path, value, `a string of at most ${AMQP_SHORTSTR_BYTES} bytes`),
    );
  }
  return value;
}

/** A subject to publish to: dot-separated tokens, none empty, without whitespace or wildcards. */
function readSubject(value: unknown, path: string): string {
  if (
    typeof value !== 'string' ||
    value.length > 1_000 ||
    !value.split('.').every((token) => /^[^\s*>]+$/.test(token))
  ) {
    throw new InvalidQueueBoxOptionsError(
      path,
      invalidOption(path, value, "a NATS subject: dot-separated tokens, none empty, without whitespace, '*' or '>'"),
    );
  }
  return value;
}
