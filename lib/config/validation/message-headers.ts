import { InvalidMessageError } from '../../shared/errors/invalid-message.error.js';
import { duplicateHeader, invalidHeader, invalidHeaders } from '../../shared/queuebox.messages.js';
import { headerNameProblem, headerValueProblem } from './http-headers.js';

/**
 * A copy of a message's headers (enqueue, receive) once every name and value is valid, or a
 * typed error naming the header. Checked where the message is written, so that a header the
 * HTTP client would refuse never reaches a publish, where it would be retried until dead.
 */
export function validateHeaders(headers: unknown, index?: number): Record<string, string> {
  if (headers === undefined) return {};
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers))
    throw new InvalidMessageError('headers', invalidHeaders(), index);
  const copy: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    const problem = headerNameProblem(name) ?? headerValueProblem(value);
    if (problem) throw new InvalidMessageError(`headers.${name}`, invalidHeader(name, problem), index);
    // HTTP names are case-insensitive: two spellings of one name would send one of them.
    if (seen.has(name.toLowerCase())) throw new InvalidMessageError(`headers.${name}`, duplicateHeader(name), index);
    seen.add(name.toLowerCase());
    copy[name] = value as string;
  }
  return copy;
}
