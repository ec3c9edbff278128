import { InvalidQueueBoxOptionsError } from '../../shared/errors/invalid-queuebox-options.error.js';
import { describeValue, invalidHiddenOption, invalidOption, unknownOption } from '../../shared/queuebox.messages.js';
import { decodeWebhookSecret } from '../../shared/signatures/webhook-secret.js';
import { parseBrokerUrl } from './broker-url.js';

/** A validated SQL identifier: letters, digits and underscores, 63 characters at most. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Reads an optional options object; with `known`, a misspelt key is refused instead of silently ignored. */
export function readObject(value: unknown, path: string, known?: readonly string[]): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidQueueBoxOptionsError(path, invalidOption(path, value, 'an object'));
  }
  if (known) {
    for (const key of Object.keys(value)) {
      if (known.includes(key)) continue;
      const at = path === '(options)' ? key : `${path}.${key}`;
      throw new InvalidQueueBoxOptionsError(at, unknownOption(at, key, known));
    }
  }
  return value as Record<string, unknown>;
}

/** An integer within [min, max], or the default when undefined. */
export function readInt(value: unknown, path: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidQueueBoxOptionsError(path, invalidOption(path, value, `an integer from ${min} to ${max}`));
  }
  return value;
}

/** A finite number within [min, max], or the default when undefined. */
export function readNumber(value: unknown, path: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new InvalidQueueBoxOptionsError(path, invalidOption(path, value, `a number from ${min} to ${max}`));
  }
  return value;
}

export function readBoolean(value: unknown, path: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean')
    throw new InvalidQueueBoxOptionsError(path, invalidOption(path, value, 'true or false'));
  return value;
}

export function readEnum<T extends string>(value: unknown, path: string, fallback: T, allowed: readonly T[]): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw new InvalidQueueBoxOptionsError(
      path,
      invalidOption(path, value, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`),
    );
  }
  return value as T;
}

/** The keys of one Standard Webhooks secret or several (rotation); undefined when absent. Never echoed. */
export function readWebhookSecrets(value: unknown, path: string): Buffer[] | undefined {
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_SECRETS) {
    throw new InvalidQueueBoxOptionsError(
      path,
      invalidHiddenOption(
        path,
        describeShape(value),
        `a Standard Webhooks secret ("whsec_…"), or an array of 1 to ${MAX_SECRETS} of them`,
      ),
    );
  }
  return list.map((secret: unknown, i) => {
    const at = typeof value === 'string' ? path : `${path}.${i}`;
    const decoded = decodeWebhookSecret(secret);
    if ('problem' in decoded)
      throw new InvalidQueueBoxOptionsError(at, invalidHiddenOption(at, describeShape(secret), decoded.problem));
    return decoded.key;
  });
}

/** Most secrets of one source or destination: rotation needs two, three at most. */
const MAX_SECRETS = 4;

function describeShape(value: unknown): string {
  if (typeof value === 'string')
    return value.length === 0 ? 'an empty string' : `a string of ${value.length} characters`;
  return describeValue(value);
}

/** A validated identifier; `maxLength` leaves room for index-name suffixes (PostgreSQL truncates into collisions). */
export function readIdentifier(value: unknown, path: string, fallback?: string, maxLength = 63): string | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !IDENTIFIER.test(value) || value.length > maxLength) {
    throw new InvalidQueueBoxOptionsError(
      path,
      invalidOption(
        path,
        value,
        `an identifier of letters, digits and underscores, starting with a letter or underscore, at most ${maxLength} characters`,
      ),
    );
  }
  return value;
}

/**
 * The keys of an options interface, checked both ways by the compiler, so an option can never be
 * typed but refused, or accepted but untyped.
 */
export const keysOf = <T extends object>(keys: { readonly [K in keyof Required<T>]: true }): readonly string[] =>
  Object.keys(keys);

/**
 * The URL of a service QueueBox connects to (a broker, a database), with one of `protocols`
 * (`'amqp:'`, …). It may hold credentials: an invalid one is described, never echoed back.
 */
export function readServiceUrl(value: unknown, path: string, protocols: readonly string[], allowed: string): string {
  if (typeof value !== 'string') throw new InvalidQueueBoxOptionsError(path, invalidOption(path, value, allowed));
  // Only NATS takes a bare host:port; any other URL must name its scheme.
  const bareAllowed = protocols.includes('nats:');
  const parsed = value.includes('://') || bareAllowed ? parseBrokerUrl(value, 'nats:') : undefined;
  if (parsed && protocols.includes(parsed.protocol) && parsed.hostname !== '') return value;
  const description =
    value.length === 0
      ? 'an empty string'
      : parsed
        ? `a URL with the scheme "${parsed.protocol}"`
        : 'a string that is not a URL';
  throw new InvalidQueueBoxOptionsError(path, invalidHiddenOption(path, description, allowed));
}
