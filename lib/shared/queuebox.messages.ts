/**
 * Every message text QueueBox logs or throws. Each one says what to change.
 * Values are described, never dumped: a payload or a secret must not reach a log.
 */
import type { LeaseAdvice } from './interfaces/lease-advice.interface.js';
import type { ResolvedTableNames } from './interfaces/table-names.interface.js';
import { DEFAULT_INBOX_TABLE, DEFAULT_OUTBOX_TABLE } from './queuebox.constants.js';
import { nearestName } from './nearest-name.js';
import type { QueueBoxTable } from './interfaces/claim.interface.js';
import { QUEUEBOX_TABLES } from './queuebox.claimers.js';

/** Short, log-safe description of an option value. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

export const invalidOption = (path: string, value: unknown, allowed: string): string =>
  `QueueBox option "${path}" is ${describeValue(value)}; it must be ${allowed}.`;

/** `a`, `a and b`, `a, b and c` (`or` with `word`). */
const listed = (items: readonly string[], word = 'and'): string =>
  items.join(', ').replace(/, ([^,]*)$/, ` ${word} $1`);

/** The databases QueueBox runs on (the dialect registry's), by display name and DataSource type. */
export interface SupportedDatabase {
  name: string;
  displayName: string;
}

export const unsupportedDatabase = (type: string, supported: readonly SupportedDatabase[]): string =>
  `QueueBox supports ${listed(supported.map((database) => database.displayName))} DataSources; this DataSource is of type "${type}". Point the "dataSource" option at a ${listed(
    supported.map((database) => `"${database.name}"`),
    'or',
  )} DataSource.`;

export const unknownDestination = (destination: string, known: readonly string[]): string =>
  `Message destination "${destination}" is not configured. Configured destinations: ${known.length ? known.map((d) => `"${d}"`).join(', ') : 'none'}; add it to the "destinations" option.`;

export const payloadTooLarge = (size: number, limit: number, option = 'outbox.maxPayloadBytes'): string =>
  `Message payload is ${size} bytes once serialized, over the limit of ${limit} bytes ("${option}").`;

export const unknownSource = (source: string, known: readonly string[]): string =>
  `Inbox source "${source}" is not declared. Declared sources: ${known.length ? known.map((s) => `"${s}"`).join(', ') : 'none'}; add it to "inbox.sources".`;

export const payloadNotSerializable = (reason: string): string =>
  `Message payload cannot be serialized to JSON (${reason}). Send plain data: objects, arrays, strings, numbers, booleans, null.`;

export const claimLost = (component: string, id: string): string =>
  `The ${component} claim of row ${id} was lost: its lease ended or another worker claimed the row. Nothing more was written for it.`;

export const outboxMarkLost = (id: string, messageId: string): string =>
  `Outbox message ${messageId} (row ${id}) was published but its claim was lost before it was marked sent; the new owner will publish it again (same X-Message-Id). Raise outbox.claimTimeoutMs above the slowest publish if this repeats.`;

export const rowWriteLost = (noun: string, what: 'retry' | 'dead-letter' | 'finish', id: string): string =>
  `${capitalized(noun)} (row ${id}): the ${what} write lost the claim; ${what === 'finish' ? 'its transaction was rolled back and ' : ''}the row is left to its new owner.`;

export const rowClaimLost = (noun: string, id: string): string =>
  `${capitalized(noun)} (row ${id}): the claim was lost while its work ran; the work was told to stop and the row is left to its new owner.`;

export const rowFinishingWriteFailed = (noun: string): string =>
  `${noun}: the finishing write failed; the row will be claimed again once its lease ends`;

export const rowNotFinished = (noun: string): string =>
  `${noun}: the work returned without its finishing write (an internal error); the row is retried`;

export const rowFinishedTwice = (noun: string): string =>
  `${noun}: the finishing write was asked for twice (an internal error)`;

export const claimContended = (worker: string): string =>
  `${worker}: the claim gave way to another claimer (claim lock not granted in time, or a deadlock); claiming again at the next tick`;

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

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

export const deprecatedOption = (path: string, replacement: string): string =>
  `QueueBox option "${path}" is deprecated and will be removed in the next major version: use "${replacement}" (same values).`;

export const deprecatedShutdownFallback = (): string =>
  `QueueBox option "outbox.shutdownTimeoutMs" also sets the inbox relay's and pull workers' shutdown wait while "workers.shutdownTimeoutMs" is not given; that fallback is deprecated: set "workers.shutdownTimeoutMs" for every loop, "outbox.shutdownTimeoutMs" for the outbox alone.`;

export const deprecatedMethod = (method: string, replacement: string): string =>
  `${method}() is deprecated and will be removed in the next major version: use ${replacement} instead. (Logged once per process.)`;

export const bothOptionNames = (path: string, replacement: string): string =>
  `QueueBox options "${path}" and "${replacement}" are both given; "${path}" is the deprecated name of "${replacement}": keep only "${replacement}".`;

export const batchAboveConcurrency = (path: string, batchSize: number, concurrency: number): string =>
  `QueueBox option "${path}.batchSize" is ${batchSize}, above "${path}.concurrency" (${concurrency}): a claim never takes more rows than there are free slots, so every claim would stop at ${concurrency}. It must be at most the concurrency: lower batchSize or raise concurrency.`;

export const invalidHeaderOption = (path: string, problem: string): string =>
  `QueueBox option "${path}": the header ${problem}; it must be a header name QueueBox does not set, with a printable ASCII value (the value is not shown).`;

export const sharedSourceSecret = (first: string, second: string): string =>
  `QueueBox option "inbox.sources.${second}.secret" repeats a secret of source "${first}": a secret identifies its source, and shared by two each would accept the other's requests. It must be a secret of its own.`;

export const invalidMessageShape = (fields: string): string => `A message must be an object with ${fields}.`;

export const invalidKey = (what: string, problem: string, optional = false): string =>
  `${what} ${problem}${optional ? '; omit it (or pass null) for an unordered message' : ''}.`;

export const invalidDelay = (max: number): string => `Message delayMs must be an integer from 0 to ${max}.`;

export const invalidHeaders = (): string => 'Message headers must be an object of header names to string values.';

export const invalidHeader = (name: string, problem: string): string => `Message header "${name}" ${problem}.`;

export const duplicateHeader = (name: string): string =>
  `Message header "${name}" is given twice (header names are case-insensitive).`;

export const headerNotForDestination = (name: string, destination: string, problem: string): string =>
  `Message header "${name}" cannot go to destination "${destination}": it ${problem}. Leave it out of the message.`;

export const headerNotPublished = (name: string, destination: string, problem: string): string =>
  `message header "${name}" cannot go to destination "${destination}": it ${problem}; the message was not published (stored around QueueBox, or before QueueBox refused such headers at enqueue)`;

export const intakeBadContentType = (): string =>
  'the body must be JSON sent as "content-type: application/json" (UTF-8)';

export const intakeBadEncoding = (): string => 'a content-encoding other than identity is not accepted';

export const intakeEmptyBody = (): string => 'a JSON body is required';

export const intakeInvalidUtf8 = (): string => 'the body is not valid UTF-8';

export const intakeInvalidJson = (): string => 'the body is not valid JSON';

export const intakeMissingId = (signed: boolean): string =>
  signed ? 'the webhook-id header is required' : 'a webhook-id or X-Message-Id header is required';

export const intakeBadHeader = (name: string, problem: string): string => `the ${name} header ${problem}`;

export const intakeSignatureRefused = (header: string, check: string): string => `${header}: signature ${check}`;

export const intakeKeyNotSigned = (): string =>
  'X-QueueBox-Key is only accepted with an X-QueueBox-Signature that covers it (send the message without a key, or sign it as QueueBox does)';

export const intakeBodyTooLarge = (limit: number): string => `the body is over ${limit} bytes (inbox.maxPayloadBytes)`;

export const intakeBodyTimedOut = (ms: number): string =>
  `the body did not arrive within ${ms} ms (inbox.bodyTimeoutMs)`;

/** The intake's 404: the caller may be anyone, so the declared sources are not listed. */
export const intakeUnknownSource = (): string => 'unknown source';

export const intakeInternalError = (): string => 'the message could not be stored; retry later';

export const intakeRawBodyMissing = (): string =>
  'the inbox intake could not read the raw request body: on an HTTP platform other than Express, create the Nest application with { rawBody: true }';

export const intakeUnsupportedPlatform = (platform: string, limit: number): string =>
  `The inbox intake reads request bodies itself only on Express; on ${platform} the platform's body limit applies: set it to at least inbox.maxPayloadBytes (${limit}) and create the application with { rawBody: true }. The platform reads each body before the intake checks its headers, and inbox.bodyTimeoutMs does not apply: give the platform a body or request timeout of its own.`;

export const intakeRouteNotFound = (suffix: string): string =>
  `The inbox intake route (POST …${suffix}) was not found among the application's routes; its bodies go through the application's body parser and its limit.`;

export const receiveRaced = (attempts: number): string =>
  `An inbox receive conflicted with an existing row ${attempts} times, and each time the row was gone when read back (deleted by retention meanwhile). Nothing was stored; retry the receive.`;

export const maxAttemptsWithoutOutcome = (): string => 'maximum attempts reached without an outcome';

export const shutdownReason = (): string => 'QueueBox shutdown';

export const destinationNotHere = (destination: string): string =>
  `destination "${destination}" is not configured on this instance; the message goes back to pending for an instance that has it`;

/** Why a table's rows of a stream this instance does not know wait, and the gauge that counts them. */
const UNKNOWN_STREAM: Record<QueueBoxTable, { why: string; gauge: string }> = {
  outbox: {
    why: 'which this instance does not have configured: its claims leave them to the instances that have it (a rolling deploy that adds the destination), and they wait if none has it (a destination removed: configure it again, or discard its rows)',
    gauge: 'queuebox_outbox_unknown_destination_messages',
  },
  inbox: {
    why: 'which this instance neither declares, routes nor pulls: its claims leave them to the instances that take them, and they wait if none does (declare the source in inbox.sources where PullService takes it)',
    gauge: 'queuebox_inbox_unknown_source_messages',
  },
};

export const unknownStreamRows = (table: QueueBoxTable, stream: string, pending: number): string =>
  `${pending} pending ${table} message(s) of ${QUEUEBOX_TABLES[table].stream} "${stream}", ${UNKNOWN_STREAM[table].why}. Counted by ${UNKNOWN_STREAM[table].gauge}.`;

export const unknownStreamsUnnamed = (table: QueueBoxTable, named: number): string =>
  `More ${QUEUEBOX_TABLES[table].streams} than the ${named} named above have pending ${table} messages that this instance does not take; they are counted by ${UNKNOWN_STREAM[table].gauge} and not named one by one.`;

export const transformNotRegistered = (path: string): string =>
  `QueueBox option "${path}" names a provider that is not registered; add it to the providers of a module.`;

export const transformInvalid = (path: string): string =>
  `QueueBox option "${path}" must name a provider with a transform(message) method.`;

export const invalidRowId = (field: string, list = false): string =>
  list
    ? `${field} must be an array of row ids (digits, as strings, at most 9223372036854775807).`
    : `${field} must be a row id (digits, at most 9223372036854775807).`;

export const invalidInteger = (field: string, min: number, max: number): string =>
  `${field} must be an integer from ${min} to ${max}.`;

export const invalidPullSource = (problem: string): string => `source ${problem}.`;

export const deadLetterNeedsReason = (): string => 'deadLetter needs a non-empty reason.';

export const databaseProblems = (type: string, problems: readonly string[]): string =>
  `QueueBox cannot run on this ${type} database: ${problems.join('; ')}.`;

export const unsupportedMigrationType = (type: string, supported: readonly SupportedDatabase[]): string =>
  `createQueueBoxMigrations: unsupported type "${type}"; use ${listed(
    supported.map((database) => `"${database.name}"`),
    'or',
  )}.`;

export const noOwnSchema = (): string =>
  "Dropping a schema needs QueueBox's tables in a schema of their own (the schema option); the default schema is never dropped.";

/** Options of the module itself: given next to `useFactory`, never inside what it returns. */
const MODULE_EXTRAS = ['isGlobal', 'dataSource', 'intake'];

export const unknownOption = (path: string, key: string, known: readonly string[]): string => {
  if (MODULE_EXTRAS.includes(key) && path === key) {
    return `QueueBox option "${key}" is an option of the module itself: give it to forRoot() next to the other options, or to forRootAsync() next to useFactory (forRootAsync({ ${key}: …, useFactory })), not in the object the factory returns; there it would be ignored.`;
  }
  const near = nearestName(key, known);
  return `QueueBox option "${path}" is not an option; it must be one of ${known.map((k) => `"${k}"`).join(', ')}${near ? ` (did you mean "${near}"?)` : ''}.`;
};

export const dataSourceMissing = (name: string | undefined): string =>
  name === undefined
    ? 'QueueBox option "dataSource" is not given and there is no default @nestjs/typeorm DataSource: import TypeOrmModule.forRoot(…) in the application, or name a DataSource with the "dataSource" option.'
    : `QueueBox option "dataSource" is "${name}", but no @nestjs/typeorm DataSource has that name: it must be the name given to TypeOrmModule.forRoot({ name: "${name}", … }).`;

export const intakeNeedsSources = (): string =>
  'QueueBox option "inbox.sources" is not given, but the HTTP intake is mounted: it must name the sources the intake accepts, each with a "secret" or "unsigned: true", so that nobody can post to a source you did not plan for.';

export const sourceNeedsSecret = (path: string): string =>
  `QueueBox option "${path}.secret" is not set: it must be a Standard Webhooks secret ("whsec_…"), or the source must say "unsigned: true" to accept unsigned requests (a secret read from an unset environment variable lands here).`;

/** A source or an http destination given both ways of trust. */
export const secretAndUnsigned = (path: string): string =>
  `QueueBox option "${path}" has both a "secret" and "unsigned: true"; it must be one of them.`;

export const sourceSecretUnsetButUnsigned = (path: string): string =>
  `QueueBox option "${path}.secret" is given but not set, next to "unsigned: true" (a secret read from an unset environment variable lands here): the source would accept requests from anyone. Set the secret and drop "unsigned", or drop "secret" to accept unsigned requests on purpose.`;

export const destinationSecretUnset = (path: string): string =>
  `QueueBox option "${path}.secret" is given but not set: it must be a Standard Webhooks secret ("whsec_…"), or the destination must say "unsigned: true" to send unsigned requests (a secret read from an unset environment variable lands here; a receiver that checks signatures would refuse every unsigned request).`;

export const storedPayloadNotJson = (id: string): string =>
  `Inbox row ${id}: the stored payload is not JSON (the row was written around QueueBox); the message cannot be handled.`;

export const serializedPayloadNotJson = (): string => 'The serializedPayload given to receive() is not JSON text.';

export const shutdownLeftRows = (count: number, timeoutMs: number): string =>
  `stopped after the shutdown timeout (${timeoutMs} ms) with ${count} row${count === 1 ? '' : 's'} in flight: they stay processing and are reclaimed once their lease ends`;

/** The start-up line when the connections are pooled per transaction (connection-pooling.ts). */
export const pooledPerTransaction = (unnamed: boolean): string =>
  'The connections are pooled per transaction (PgBouncer in transaction mode, or a pooler like it): each transaction may run on another database session. ' +
  (unnamed
    ? 'Prepared statements do not last from one transaction to the next there, so QueueBox runs its statements unnamed (preparedStatements: false skips this check).'
    : 'The pooler keeps prepared statements across transactions, so QueueBox prepares its hot statements as usual.');

export const preparedStatementsNotKept = (): string =>
  'QueueBox option "preparedStatements" is true, but the connections do not keep prepared statements from one transaction to the next: they are pooled per transaction (PgBouncer in transaction mode, or a pooler like it). ' +
  'Leave the option unset (QueueBox then runs its statements unnamed) or set it to false; or connect directly, through a pooler in session mode, or through PgBouncer 1.21+ with max_prepared_statements.';

export const preparedStatementLost = (error: string): string =>
  `A prepared statement of QueueBox's was unknown to the database session serving it (${error}): the connections are pooled per transaction (PgBouncer in transaction mode, or a pooler like it). ` +
  'QueueBox runs its statements unnamed from now on; set preparedStatements: false to start that way.';

/** The wake-up hub's start-up warning when LISTEN cannot work on the pool's connections and no `notify.listenUrl` is set. */
export const listenNotLasting = (): string =>
  'The connections are pooled per transaction, where a LISTEN does not last past its transaction: this instance does not receive wake-ups from other replicas, and its loops find their rows on their poll interval. ' +
  'Set notify.listenUrl to a postgres:// URL that reaches the database directly or through a pooler in session mode, to receive them. (Rows written by this instance still wake its loops at once, and its NOTIFYs still reach replicas that listen.)';

/** The LISTEN connection's channels went missing on a fresh connection: the pooler moved it to another session. */
export const listenMovedSession = (dedicated: boolean): string =>
  dedicated
    ? 'The LISTEN connection (notify.listenUrl) lost its channels between two transactions: that URL reaches a pooler in transaction mode. It must reach the database directly or through a pooler in session mode. Wake-ups from other replicas stop; loops poll.'
    : 'The LISTEN connection lost its channels between two transactions: the connections are pooled per transaction. Wake-ups from other replicas stop, and loops poll; set notify.listenUrl to a direct or session-mode postgres:// URL to receive them.';

export const statementTimedOut = (timeoutMs: number): string =>
  `the database did not answer within statementTimeoutMs (${timeoutMs} ms); the connection was discarded`;

export const releasedRunner = (): string =>
  'The EntityManager passed to QueueBox belongs to a transaction that has ended (its query runner is released); pass the manager of the open transaction.';

export const retentionScheduleOnly = (path: string, interval = false): string =>
  interval
    ? `QueueBox option "${path}" is set together with "retention.schedule": the sweeper runs either on the schedule or every intervalMs. Remove one of them.`
    : `QueueBox option "${path}" applies only to a scheduled sweeper; it must be left out, or "retention.schedule" set.`;

export const retentionScheduleNeedsAges = (): string =>
  `QueueBox option "retention.schedule" is set, but no retention age is: the scheduled sweeper would delete nothing. Set "retention.outboxSentMs", "retention.inboxProcessedMs" or "retention.deadMs".`;

export const schedulePackageMissing = (): string =>
  `QueueBox option "retention.schedule" needs the optional package "@nestjs/schedule". Install it (npm install @nestjs/schedule) and import ScheduleModule.forRoot() in the application module.`;

export const schedulePackageBroken = (reason: string): string =>
  `QueueBox option "retention.schedule" needs "@nestjs/schedule", which failed to load (${reason}). Reinstall it: npm install @nestjs/schedule`;

export const scheduleModuleMissing = (): string =>
  `QueueBox option "retention.schedule" is set, but no SchedulerRegistry is available: import ScheduleModule.forRoot() from "@nestjs/schedule" in the application module.`;

export const invalidCronExpression = (expression: string, reason: string): string =>
  `QueueBox option "retention.schedule" is ${JSON.stringify(expression)}, which the cron library refuses (${reason}); it must be a valid cron expression.`;

export const duplicateRetentionJob = (name: string): string =>
  `QueueBox option "retention.jobName" is "${name}", a name SchedulerRegistry already holds a cron job under; it must be a name of its own.`;

export const invalidTable = (field: string): string => `${field} must be 'outbox' or 'inbox'.`;

export const invalidFilterText = (field: string, max: number): string =>
  `${field} must be a non-empty string of at most ${max} characters.`;

export const filterTextHasNul = (field: string): string =>
  `${field} must not contain NUL characters (no stored text holds one).`;

export const filterNotForTable = (field: string, table: string, instead: string): string =>
  `${field} does not filter the ${table}; use ${instead} for the ${table}.`;

export const invalidInstant = (field: string): string =>
  `${field} must be a valid Date or an ISO 8601 date-time with a time zone (2026-01-31T12:00:00Z).`;

export const emptyTimeRange = (): string => 'deadBefore must be later than deadSince.';

export const invalidSelection = (): string => 'selection must be { ids: [...] } or { filter: {...} }.';

export const tooManyIds = (max: number): string => `ids may list at most ${max} row ids; for more, go by filter.`;

export const deadLetterNotFound = (table: string, id: string): string =>
  `No dead ${table} message has id ${id}; it was replayed, discarded or purged, or never died.`;

export const adminUnprotected = (): string =>
  'QueueBoxAdminModule refuses to start unprotected: give forRoot a bearerToken (from a secret, at least 32 characters) or a guard class of your application (extra `guard`).';

export const adminBearerTokenTooShort = (min: number): string =>
  `QueueBox option "admin.bearerToken" must be a string of at least ${min} characters without spaces (for example 32 random bytes in base64url).`;

export const invalidAdminPath = (path: unknown): string =>
  `QueueBox option "admin.path" is ${JSON.stringify(path)}; it must be route segments of letters, digits, '-' and '_' separated by '/', such as 'queuebox/admin'.`;

export const adminUnauthorized = (): string => 'Send the admin bearer token: Authorization: Bearer <token>.';

export const adminForbidden = (): string => 'This request is not allowed to use the QueueBox admin.';

export const adminJsonOnly = (): string =>
  'A replay or discard must be sent as JSON in UTF-8: Content-Type: application/json.';

export const adminBodyErrorsNotInstalled = (suffix: string): string =>
  `The admin API route (POST …${suffix}) was not found among the application's routes; a body the application's parser refuses gets the application's error answer, not the admin's.`;

export const adminHeaderRequired = (header: string, value: string): string =>
  `A replay or discard must carry the header ${header}: ${value} (an HTML form cannot send it, so a forged form post is refused).`;

export const unknownAdminField = (field: string): string => `${field} is not a field of this request.`;

export const invalidAdminBody = (): string =>
  'The body must be a JSON object: { "ids": [...] } or { "filter": {...} }, with an optional "chunkSize".';

export const notAnInteger = (field: string): string => `${field} must be an integer.`;

export const notABoolean = (field: string): string => `${field} must be true or false.`;

export const leaseAdvice = (advice: LeaseAdvice): string => {
  const { p50, p95, p99 } = advice.utilization;
  const percent = (ratio: number): string => `${Math.round(ratio * 100)}%`;
  const seen =
    advice.reason === 'utilization'
      ? `work regularly uses most of its lease (p50 ${percent(p50)}, p95 ${percent(p95)}, p99 ${percent(p99)} of ${advice.leaseMs} ms over the last ${advice.samples} rows${advice.claimsLost > 0 ? `, ${advice.claimsLost} claims lost` : ''})`
      : `${advice.claimsLost} of the last ${advice.samples} rows lost their claim (utilization p95 ${percent(p95)} of ${advice.leaseMs} ms)`;
  return `${advice.component} ${advice.stream}: ${seen}; set ${advice.option} to ${advice.recommendedLeaseMs} ms, or make the work faster, before leases expire under it and rows are processed twice`;
};

export const healthThresholdsOutOfOrder = (path: string, degraded: number, down: number): string =>
  `QueueBox option "${path}": the degraded threshold (${degraded}) must be below the down threshold (${down}); lower the first or raise the second.`;

export const oldestPendingTooOld = (subject: string, ageMs: number, limitMs: number): string =>
  `${subject}: the oldest pending message is ${Math.round(ageMs / 1000)} s old (threshold ${Math.round(limitMs / 1000)} s); its destination or handler is failing or too slow`;

export const deadLettersInWindow = (count: number, limit: number, windowMs: number): string =>
  `${count} messages dead-lettered in the last ${Math.round(windowMs / 1000)} s (threshold ${limit}); list them with DeadLetterService.list(), fix the cause, then DeadLetterService.replay()`;

export const loopStalled = (loop: string, ageMs: number, intervals: number): string =>
  `loop ${loop} has not ticked for ${Math.round(ageMs / 1000)} s (${intervals} poll intervals) with nothing in flight`;

/** A database's migrations as `queuebox/migrations` exports them: its DataSource type, and the constant for the default table names. */
export interface MigrationsExport {
  type: string;
  defaultMigrations: string;
}

/** The `createQueueBoxMigrations` call that makes tables of these names. */
const migrationsCall = (type: string, tables?: ResolvedTableNames): string => {
  if (!tables) return `createQueueBoxMigrations({ type: '${type}', schema, tables })`;
  const names = [
    tables.outbox === DEFAULT_OUTBOX_TABLE ? '' : `outbox: '${tables.outbox}'`,
    tables.inbox === DEFAULT_INBOX_TABLE ? '' : `inbox: '${tables.inbox}'`,
  ].filter(Boolean);
  return `createQueueBoxMigrations({ type: '${type}'${tables.schema ? `, schema: '${tables.schema}'` : ''}${names.length ? `, tables: { ${names.join(', ')} }` : ''} })`;
};

/** What to add to the DataSource's `migrations`: the constant for the default names, the factory for others. */
export const migrationsToAdd = (database: MigrationsExport, tables?: ResolvedTableNames): string =>
  tables && (tables.schema || tables.outbox !== DEFAULT_OUTBOX_TABLE || tables.inbox !== DEFAULT_INBOX_TABLE)
    ? `${migrationsCall(database.type, tables)} from "queuebox/migrations" (the schema and tables given to QueueBoxModule)`
    : `${database.defaultMigrations} from "queuebox/migrations" (or ${migrationsCall(database.type)} for other table names)`;

/** A table's name in a message: schema-qualified when a schema is set. */
const tableName = (tables: ResolvedTableNames, name: string): string =>
  tables.schema ? `${tables.schema}.${name}` : name;

export const tableMissing = (tables: ResolvedTableNames, name: string): string =>
  `table ${tableName(tables, name)} does not exist`;

export const columnsMissing = (tables: ResolvedTableNames, name: string, columns: readonly string[]): string =>
  `table ${tableName(tables, name)} has no column${columns.length === 1 ? '' : 's'} ${listed(columns)}`;

/** How the tables were looked up, for a reader who finds them elsewhere. */
const lookedUp = (tables: ResolvedTableNames): string =>
  tables.schema ? `in schema ${tables.schema}` : 'without a schema, as the "schema" option is not set';

export const missingMigrations = (
  displayName: string,
  database: MigrationsExport,
  tables: ResolvedTableNames,
  problems: readonly string[],
  migrations: readonly string[],
): string =>
  `QueueBox's tables are not ready on this ${displayName} database (looked up ${lookedUp(tables)}): ${problems.join('; ')}. ` +
  `The migration${migrations.length === 1 ? '' : 's'} ${listed(migrations)} ${migrations.length === 1 ? 'has' : 'have'} not run there: add ${migrationsToAdd(database, tables)} to the DataSource's "migrations" and run them ("migrationsRun: true" runs them as the DataSource starts). ` +
  'If the tables exist elsewhere, set QueueBox\'s "schema" and "tables" options to their names. To start anyway and wait for the migrations, set "startup.waitForMigrations: true".';

export const waitingForMigrations = (problems: readonly string[], checkIntervalMs: number): string =>
  `QueueBox's tables are not ready: ${problems.join('; ')}. Waiting for them (startup.waitForMigrations), looking again every ${checkIntervalMs} ms: no loop runs and the health indicator reports down until then.`;

export const tablesReady = (waitedMs: number): string =>
  `QueueBox's tables are ready after ${Math.round(waitedMs / 1000)} s of waiting: starting the loops`;

export const tablesCheckFailed = (error: string): string => `the check of QueueBox's tables failed: ${error}`;

export const startUpConnectionLost = (check: string, error: string, withinMs: number): string =>
  `the database connection was lost during ${check} (${error}); trying again for up to ${withinMs / 1000} s before start-up fails`;

export const dataSourceNotInitialized = (): string =>
  'QueueBox option "dataSource" names a DataSource that is not initialized when QueueBox starts (TypeOrmModule\'s "manualInitialization", or a dataSourceFactory that returns it uninitialized): QueueBox checks its tables at start-up; let @nestjs/typeorm initialize the DataSource, or initialize it in the dataSourceFactory.';

export const loopStartFailed = (): string => 'a QueueBox loop failed to start once its tables were ready';
