import { defineConfig } from 'vitest/config';

/**
 * Nest needs legacy decorators and `design:paramtypes` metadata; Vite 8 transforms
 * TypeScript with oxc, which emits both when told to.
 */
const oxc = {
  decorator: { legacy: true, emitDecoratorMetadata: true },
} as const;

/** Whether the SQL Server project has a server to run on (else it reports every test as skipped). */
const mssqlConfigured = Boolean(process.env.QUEUEBOX_MSSQL_URL);

/**
 * Dialect-neutral specs that do not run through PgBouncer in transaction mode, each for a reason
 * of the test's own, not QueueBox's (the integration-pgbouncer project).
 */
const PGBOUNCER_EXCLUDED: string[] = [];

export default defineConfig({
  oxc,
  test: {
    reporters: ['default', 'json'],
    outputFile: { json: './.vitest-results.json' },
    projects: [
      {
        oxc,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.spec.ts'],
          // A guard against a hang, not a measure: a first import of a peer (Nest, cron, TypeORM)
          // took over Vitest's default 5 s on a loaded 2-core machine.
          testTimeout: 30_000,
          // Hooks that compile (the docs' code blocks, the published declarations) take over the
          // default 10 s on a 2-core machine busy with other work.
          hookTimeout: 120_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        oxc,
        test: {
          name: 'integration',
          // The dialect-neutral specs, the PostgreSQL-only ones, and end to end, on PostgreSQL.
          include: [
            'test/integration/shared/**/*.spec.ts',
            'test/integration/pg/**/*.spec.ts',
            'test/e2e/**/*.spec.ts',
          ],
          env: { QUEUEBOX_TEST_DB: 'postgres' },
          globalSetup: ['./test/setup/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Test files share one PostgreSQL server of 2 cores; each file uses its own schema.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        oxc,
        test: {
          // The dialect-neutral specs on PostgreSQL through a real PgBouncer in transaction mode
          // (docs/guides/production.md, "PgBouncer"): QueueBox's connections pooled per
          // transaction, its LISTEN on a session-mode database (notify.listenUrl). Skipped, loudly,
          // without a PgBouncer binary.
          name: 'integration-pgbouncer',
          include: ['test/integration/shared/**/*.spec.ts'],
          exclude: PGBOUNCER_EXCLUDED,
          env: { QUEUEBOX_TEST_DB: 'postgres', QUEUEBOX_TEST_POOLER: 'pgbouncer' },
          globalSetup: ['./test/setup/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        oxc,
        test: {
          // The dialect-neutral specs and the SQL Server-only ones, on the server named by
          // QUEUEBOX_MSSQL_URL; without it, every test is reported as skipped (global-setup.ts).
          name: 'integration-mssql',
          include: ['test/integration/shared/**/*.spec.ts', 'test/integration/mssql/**/*.spec.ts'],
          env: { QUEUEBOX_TEST_DB: 'mssql' },
          globalSetup: ['./test/setup/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
          // Without a server the files are only collected, never run: sharing their modules
          // between files saves minutes of imports.
          isolate: mssqlConfigured,
          sequence: { groupOrder: 3 },
        },
      },
      {
        oxc,
        test: {
          name: 'package',
          include: ['test/package/**/*.spec.ts'],
          env: { QUEUEBOX_TEST_DB: 'postgres' },
          globalSetup: ['./test/setup/global-setup.ts'],
          testTimeout: 600_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 2 },
        },
      },
      {
        oxc,
        test: {
          // The chaos suite (contributing/chaos.md): replica processes on the built package against
          // a private PostgreSQL cluster (QUEUEBOX_PG_URL's server without the PostgreSQL
          // programs); runs only with QUEUEBOX_CHAOS=1, reported skipped otherwise. Each test sets
          // its own guard against a hang.
          name: 'chaos',
          include: ['test/chaos/**/*.spec.ts'],
          testTimeout: 300_000,
          hookTimeout: 180_000,
          sequence: { groupOrder: 4 },
        },
      },
    ],
  },
});
