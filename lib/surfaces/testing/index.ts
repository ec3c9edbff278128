/**
 * `queuebox/testing`: test your own services on QueueBox — a recording destination, `drain()`
 * that waits for the outbox, the relay and the pull workers to finish, injected publish
 * failures, an embedded PostgreSQL and a module preset on it.
 * @packageDocumentation
 */
export { RecordingPublisher } from './recording-publisher.js';
export { drain, type DrainOptions, type PendingWork } from './drain.js';
export { failNextPublishes, type InjectedFailure, type PublishFaults } from './publish-faults.js';
export { startEmbeddedPostgres, type EmbeddedPostgres, type EmbeddedPostgresOptions } from './embedded-postgres.js';
export { QueueBoxTestingModule, type QueueBoxTestingModuleOptions } from './queuebox-testing.module.js';
export type { QueueBoxTestApp } from './queuebox-app.js';
export { DrainTimeoutError } from '../../shared/errors/drain-timeout.error.js';
export { PeerMissingError } from '../../shared/errors/peer-missing.error.js';
