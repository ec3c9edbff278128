/*
 * The embedded PostgreSQL of the tests, the bench and the sample app: the testing kit's own
 * (queuebox/testing), so that the repository and its users start it the same way.
 */
export {
  freePort,
  startEmbeddedPostgres,
  type EmbeddedPostgres as EmbeddedServer,
  type EmbeddedPostgresOptions as EmbeddedServerOptions,
} from '../lib/surfaces/testing/embedded-postgres.js';
