/** Injection token of the raw options given to `forRoot`/`forRootAsync`. */
export const QUEUEBOX_MODULE_OPTIONS = Symbol('QUEUEBOX_MODULE_OPTIONS');
/** Injection token of the validated options with every default applied. */
export const QUEUEBOX_RESOLVED_OPTIONS = Symbol('QUEUEBOX_RESOLVED_OPTIONS');
/** Injection token of the application's TypeORM `DataSource` that QueueBox uses. */
export const QUEUEBOX_DATA_SOURCE = Symbol('QUEUEBOX_DATA_SOURCE');
/** Injection token of the SQL dialect chosen from the DataSource type. */
export const QUEUEBOX_SQL_DIALECT = Symbol('QUEUEBOX_SQL_DIALECT');

/** Default outbox table name (option `tables.outbox`). @publicApi */
export const DEFAULT_OUTBOX_TABLE = 'queuebox_outbox_messages';
/** Default inbox table name (option `tables.inbox`). @publicApi */
export const DEFAULT_INBOX_TABLE = 'queuebox_inbox_messages';

/** Header that carries the outbox row's message id on every publish. @publicApi */
export const MESSAGE_ID_HEADER = 'X-Message-Id';
/** Header that carries the outbox ordering key (the receiver's aggregate). @publicApi */
export const MESSAGE_KEY_HEADER = 'X-QueueBox-Key';
/** Header that carries the HMAC signature of a publish (`t=<unix seconds>,v1=<hex>`). @publicApi */
export const SIGNATURE_HEADER = 'X-QueueBox-Signature';
