import { MAX_KEY_LENGTH } from '../queuebox.limits.js';

/**
 * Whether `value` holds a control character (C0, DEL, C1). PostgreSQL refuses NUL in text
 * outright (the statement fails, and a driver error would echo the parameters); the others have
 * no business in a key and make logs and dashboards lie.
 */
function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/**
 * Why a key (ordering key, aggregate key, idempotency key, source name) is refused, or
 * undefined when it is valid: a string of 1 to 200 characters, well-formed Unicode, no control
 * characters, not ending in a space (SQL Server compares `abc` and `abc ` as equal, so such keys
 * would dedupe differently on the two databases).
 */
export function keyProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `must be a string of 1 to ${MAX_KEY_LENGTH} characters`;
  if (value.length === 0 || value.length > MAX_KEY_LENGTH) return `must be 1 to ${MAX_KEY_LENGTH} characters long`;
  if (!value.isWellFormed()) return 'must be well-formed Unicode (it contains a lone surrogate)';
  if (hasControlCharacter(value)) return 'must not contain control characters (NUL, line breaks, tabs, …)';
  if (value.endsWith(' ')) return 'must not end in a space';
  return undefined;
}
