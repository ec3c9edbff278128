/**
 * QueueBox: reliable messaging for NestJS through the application's own database.
 * @packageDocumentation
 */
export { QueueBoxModule } from './surfaces/module/queuebox.module.js';
export type { QueueBoxModuleExtras } from './surfaces/module/queuebox.module-definition.js';
export { OutboxService, type EnqueueOptions } from './features/outbox/outbox.service.js';
export { InboxService, type ReceiveOptions } from './features/inbox/inbox.service.js';
export { PullService } from './features/pull/pull.service.js';
export { DeadLetterService } from './features/dead-letters/dead-letter.service.js';
export { QueueBoxAdmin } from './surfaces/admin/queuebox-admin.service.js';
export { QueueBoxAdminModule } from './surfaces/admin/http/queuebox-admin.module.js';
export type {
  AdminRequest,
  QueueBoxAdminModuleExtras,
  QueueBoxAdminModuleOptions,
} from './surfaces/admin/http/admin-http-options.interface.js';
export { PullWorker, type PullWorkerMetadata } from './features/pull/pull-worker.decorator.js';
export { PullWorkerHost } from './features/pull/pull-worker.host.js';
export type {
  PullClaimOptions,
  PullContext,
  PulledMessage,
  PullWorkerOptions,
} from './shared/interfaces/pull.interface.js';

export type {
  BackoffOptions,
  CustomDestinationOptions,
  DestinationOptions,
  HttpDestinationOptions,
  InboxOptions,
  InboxRelayOptions,
  InboxRouteOptions,
  InboxSourceOptions,
  InboxTransform,
  NatsDestinationOptions,
  NotifyOptions,
  OutboxOptions,
  QueueBoxModuleOptions,
  QueueBoxOptionsFactory,
  RetentionOptions,
  RabbitMqDestinationOptions,
  StartupOptions,
} from './shared/interfaces/queuebox-options.interface.js';
export type {
  DestinationName,
  EnqueuedMessage,
  OutboxMessage,
  OutboxMessageInput,
  QueueBoxDestinations,
} from './shared/interfaces/outbox-message.interface.js';
export type { OutboxPublisher, PublishContext } from './shared/interfaces/outbox-publisher.interface.js';
export type { InboxMessage, InboxMessageInput, InboxReceipt } from './shared/interfaces/inbox-message.interface.js';
export type {
  DeadInboxMessage,
  DeadLetterQuery,
  DeadOutboxMessage,
} from './shared/interfaces/dead-letter.interface.js';
export type {
  Backlog,
  BacklogEntry,
  BlockedKey,
  ClaimAtRisk,
  ClaimsAtRisk,
  DeadLetterBatchOptions,
  DeadLetterBatchResult,
  DeadLetterDetail,
  DeadLetterFilter,
  DeadLetterListQuery,
  DeadLetterOf,
  DeadLetterPage,
  DeadLetterSelection,
  LoopComponent,
  LoopSnapshot,
  LostClaim,
  QueueBoxTable,
  RowStateRow,
} from './shared/interfaces/admin.interface.js';
export type { Claim, ClaimComponent } from './shared/interfaces/claim.interface.js';
export { QueueBoxEvents, type QueueBoxAnyEventListener } from './shared/events/queuebox-events.service.js';
export type {
  QueueBoxEventListener,
  QueueBoxEventMap,
  QueueBoxEventName,
} from './shared/events/queuebox-event-map.interface.js';
export { LeaseAdvisor } from './engine/leases/lease-advisor.js';
export type { LeaseAdvice, UtilizationPercentiles } from './shared/interfaces/lease-advice.interface.js';

export { QueueBoxError, type QueueBoxErrorCode } from './shared/errors/queuebox.error.js';
export { InvalidQueueBoxOptionsError } from './shared/errors/invalid-queuebox-options.error.js';
export { UnsupportedDatabaseError } from './shared/errors/unsupported-database.error.js';
export { MissingMigrationsError } from './shared/errors/missing-migrations.error.js';
export { InvalidMessageError } from './shared/errors/invalid-message.error.js';
export { UnknownDestinationError } from './shared/errors/unknown-destination.error.js';
export { UnknownSourceError } from './shared/errors/unknown-source.error.js';
export { PayloadTooLargeError } from './shared/errors/payload-too-large.error.js';
export { ClaimLostError } from './shared/errors/claim-lost.error.js';
export { StatementTimeoutError } from './shared/errors/statement-timeout.error.js';
export { InvalidArgumentError } from './shared/errors/invalid-argument.error.js';
export { InvalidPullWorkerError } from './shared/errors/invalid-pull-worker.error.js';
export { DuplicatePullWorkerError } from './shared/errors/duplicate-pull-worker.error.js';
export { PublishFailedError } from './shared/errors/publish-failed.error.js';
export { DeadLetterNotFoundError } from './shared/errors/dead-letter-not-found.error.js';
export { ReceiveRacedError } from './shared/errors/receive-raced.error.js';

export {
  checkWebhookSignatures,
  webhookSignatures,
  type SignatureCheck,
} from './shared/signatures/webhook-signature.js';
export { decodeWebhookSecret, WEBHOOK_SECRET_PREFIX } from './shared/signatures/webhook-secret.js';
export { coveredHeadersText, COVERED_HEADERS } from './shared/signatures/covered-headers.js';
export {
  MESSAGE_ID_HEADER,
  MESSAGE_KEY_HEADER,
  SIGNATURE_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  DEFAULT_INBOX_TABLE,
  DEFAULT_OUTBOX_TABLE,
} from './shared/queuebox.constants.js';
export {
  CLAIMS_LOST_TOTAL,
  OUTBOX_BACKLOG_MESSAGES,
  OUTBOX_MESSAGES_PUBLISHED_TOTAL,
  OUTBOX_MESSAGES_RECLAIMED_TOTAL,
  OUTBOX_OLDEST_PENDING_AGE_SECONDS,
  OUTBOX_ORDER_INVERSIONS_TOTAL,
  OUTBOX_PUBLISH_DURATION_SECONDS,
  INBOX_BACKLOG_MESSAGES,
  INBOX_MESSAGES_RECEIVED_TOTAL,
  INBOX_MESSAGES_RELAYED_TOTAL,
  INBOX_OLDEST_PENDING_AGE_SECONDS,
  INBOX_RELAY_FAILURES_TOTAL,
  INBOX_RELAY_ORDER_INVERSIONS_TOTAL,
  LOOP_ERRORS_TOTAL,
  LOOP_TICKS_TOTAL,
  PULL_HANDLER_DURATION_SECONDS,
  PULL_MESSAGES_HANDLED_TOTAL,
  PULL_ORDER_INVERSIONS_TOTAL,
  ROWS_PURGED_TOTAL,
  LEASE_ADVISED_SECONDS,
  LEASE_RENEWALS_TOTAL,
  LEASE_UTILIZATION_RATIO,
} from './engine/metrics/queuebox.metrics.js';
