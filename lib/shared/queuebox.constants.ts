/** Injection token of the raw options given to `forRoot`/`forRootAsync`. */
export const QUEUEBOX_MODULE_OPTIONS = Symbol('QUEUEBOX_MODULE_OPTIONS');
/** Injection token of the validated options with every default applied. */
export const QUEUEBOX_RESOLVED_OPTIONS = Symbol('QUEUEBOX_RESOLVED_OPTIONS');
/** Injection token of the application's TypeORM `DataSource` that QueueBox uses. */
export const QUEUEBOX_DATA_SOURCE = Symbol('QUEUEBOX_DATA_SOURCE');
/** Injection token of the SQL dialect chosen from the DataSource type. */
export const QUEUEBOX_SQL_DIALECT = Symbol('QUEUEBOX_SQL_DIALECT');

/** Injection token of the path the inbox intake is mounted on (the `intake.path` extra). */
export const QUEUEBOX_INTAKE_PATH = Symbol('QUEUEBOX_INTAKE_PATH');

/** Default outbox table name (option `tables.outbox`). @publicApi */
export const DEFAULT_OUTBOX_TABLE = 'queuebox_outbox_messages';
/** Default inbox table name (option `tables.inbox`). @publicApi */
export const DEFAULT_INBOX_TABLE = 'queuebox_inbox_messages';

/**
 * Header that carries the message id of a publish to an unsigned HTTP destination (a signed one
 * carries it as `webhook-id`). Stable across retries and re-publishes of one outbox row.
 * @publicApi
 */
export const MESSAGE_ID_HEADER = 'X-Message-Id';
/** Header that carries the outbox ordering key (the receiver's aggregate). @publicApi */
export const MESSAGE_KEY_HEADER = 'X-QueueBox-Key';
/**
 * Header that carries QueueBox's second signature: the Standard Webhooks signature covers the
 * id, the timestamp and the body; this one covers the ordering key and the trace context, which
 * the intake stores too. Same `v1,<base64>` list, same secrets.
 * @publicApi
 */
export const SIGNATURE_HEADER = 'X-QueueBox-Signature';
/** Standard Webhooks: the message id of a signed publish. @publicApi */
export const WEBHOOK_ID_HEADER = 'webhook-id';
/** Standard Webhooks: Unix seconds when the request was signed. @publicApi */
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
/** Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256>` signatures, one per secret. @publicApi */
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
