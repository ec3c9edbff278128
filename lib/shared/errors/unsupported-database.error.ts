import { QueueBoxError } from './queuebox.error.js';

/** Thrown at bootstrap when the DataSource is of a database type QueueBox has no dialect for. @publicApi */
export class UnsupportedDatabaseError extends QueueBoxError {
  constructor(
    readonly databaseType: string,
    message: string,
  ) {
    super('UNSUPPORTED_DATABASE', message);
  }
}
