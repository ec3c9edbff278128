/**
 * Every message text QueueBox logs or throws. Each one says what to change.
 * Values are described, never dumped: a payload or a secret must not reach a log.
 */

/** Short, log-safe description of an option value. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

export const invalidOption = (path: string, value: unknown, allowed: string): string =>
  `QueueBox option "${path}" is ${describeValue(value)}; it must be ${allowed}.`;

export const unsupportedDatabase = (type: string): string =>
  `QueueBox supports PostgreSQL DataSources (SQL Server is not available yet); this DataSource is of type "${type}". Point the "dataSource" option at a postgres DataSource.`;

export const unknownDestination = (destination: string, known: readonly string[]): string =>
  `Message destination "${destination}" is not configured. Configured destinations: ${known.length ? known.map((d) => `"${d}"`).join(', ') : 'none'}; add it to the "destinations" option.`;

export const payloadTooLarge = (size: number, limit: number, option = 'outbox.maxPayloadBytes'): string =>
  `Message payload is ${size} bytes once serialized, over the limit of ${limit} bytes ("${option}").`;

export const unknownSource = (source: string, known: readonly string[]): string =>
  `Inbox source "${source}" is not declared. Declared sources: ${known.length ? known.map((s) => `"${s}"`).join(', ') : 'none'}; add it to "inbox.sources".`;

export const inboxForwardLost = (id: string): string =>
  `Inbox row ${id}: the relay's claim was lost before the forward committed; the forward was rolled back and the row is left to its new owner.`;

export const payloadNotSerializable = (reason: string): string =>
  `Message payload cannot be serialized to JSON (${reason}). Send plain data: objects, arrays, strings, numbers, booleans, null.`;

export const claimLost = (component: string, id: string): string =>
  `The ${component} claim of row ${id} was lost: its lease ended or another worker claimed the row. Nothing more was written for it.`;

export const outboxMarkLost = (id: string, messageId: string): string =>
  `Outbox message ${messageId} (row ${id}) was published but its claim was lost before it was marked sent; the new owner will publish it again (same X-Message-Id). Raise outbox.claimTimeoutMs above the slowest publish if this repeats.`;

export const outboxWriteLost = (what: 'retry' | 'dead-letter', id: string, messageId: string): string =>
  `Outbox message ${messageId} (row ${id}): the ${what} write lost the claim; the row is left to its new owner.`;

export const customPublisherMissing = (destination: string, token: string): string =>
  `Destination "${destination}" uses the custom publisher ${token}, which is not a provider visible to QueueBox. Add it to the providers of a module (or export it from a global one).`;

export const customPublisherInvalid = (destination: string, token: string): string =>
  `Destination "${destination}": the provider ${token} has no publish(message, context) method.`;

export const pullWorkerNotHost = (name: string): string =>
  `@PullWorker class ${name} must extend PullWorkerHost and implement handle(message, context).`;

export const pullWorkerRequestScoped = (name: string): string =>
  `@PullWorker class ${name} is request-scoped (or depends on a request-scoped provider); pull workers must be singletons. Remove the request scope.`;

export const duplicatePullWorker = (source: string, names: readonly string[]): string =>
  `Source "${source}" has more than one @PullWorker (${names.join(', ')}); a source is consumed by exactly one worker class. Give one of them another source, or merge them.`;

export const invalidPullOption = (name: string, field: string, value: unknown, allowed: string): string =>
  `@PullWorker class ${name}: option "${field}" is ${describeValue(value)}; it must be ${allowed}.`;

export const invalidHiddenOption = (path: string, description: string, allowed: string): string =>
  `QueueBox option "${path}" is ${description} (the value is not shown: it may hold credentials); it must be ${allowed}.`;

export const peerPackageMissing = (destination: string, type: string, packages: readonly string[]): string =>
  `Destination "${destination}" is of type '${type}', which needs the optional package${packages.length > 1 ? 's' : ''} ${packages.map((p) => `"${p}"`).join(' and ')}. Install ${packages.length > 1 ? 'them' : 'it'}: npm install ${packages.join(' ')}`;

export const peerPackageBroken = (destination: string, type: string, pkg: string, reason: string): string =>
  `Destination "${destination}" is of type '${type}', but the package "${pkg}" failed to load (${reason}). Reinstall it: npm install ${pkg}`;

export const natsNoStream = (destination: string, subject: string): string =>
  `NATS destination "${destination}": no JetStream stream captures subject "${subject}" (no responders; or JetStream is not enabled on the server). Create a stream whose subjects include "${subject}".`;
