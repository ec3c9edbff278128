import { describe, expect, it } from 'vitest';
import { schemaGaps } from '../../lib/engine/startup/schema-gaps.js';
import { dialectProfiles } from '../../lib/database/dialects/dialect-registry.js';
import { createInboxTable, createOutboxTable } from '../../lib/database/dialects/mssql/schema.sql.js';
import { mssqlSchemaSteps } from '../../lib/database/dialects/mssql/mssql-schema-steps.js';
import { postgresSchemaSteps } from '../../lib/database/dialects/postgres/schema.sql.js';
import { INBOX_COLUMNS, OUTBOX_COLUMNS } from '../../lib/database/dialects/schema-columns.js';
import { InvalidQueueBoxOptionsError } from '../../lib/index.js';
import * as migrations from '../../lib/surfaces/migrations/index.js';
import { createQueueBoxMigrations } from '../../lib/surfaces/migrations/index.js';
import { resolveOptions } from '../../lib/config/options/resolve-options.js';
import { missingMigrations } from '../../lib/shared/queuebox.messages.js';

const defaults = resolveOptions({}).tables;
const custom = resolveOptions({ schema: 'billing', tables: { outbox: 'billing_outbox' } }).tables;
const v2 = { outbox: OUTBOX_COLUMNS, inbox: INBOX_COLUMNS };

/** The column names of a CREATE TABLE statement: its lines that start with a name and a type, before the constraints. */
const createdColumns = (statement: string): string[] =>
  statement
    .split('\n')
    .slice(1)
    .map((line) => /^ {2}([a-z_]+)\s+\S/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'CONSTRAINT');

describe('the start-up check of the tables', () => {
  it('finds nothing missing in tables of the current version, whatever other columns the application added', () => {
    expect(
      schemaGaps(
        postgresSchemaSteps(defaults),
        { outbox: [...OUTBOX_COLUMNS, 'tenant_id'], inbox: INBOX_COLUMNS },
        defaults,
      ),
    ).toEqual({ problems: [], steps: [] });
    expect(schemaGaps(mssqlSchemaSteps(defaults), v2, defaults)).toEqual({ problems: [], steps: [] });
  });

  it('names every step of a table that does not exist, and the one step of a column that is missing', () => {
    const steps = postgresSchemaSteps(custom);
    expect(schemaGaps(steps, {}, custom)).toEqual({
      problems: ['table billing.billing_outbox does not exist', 'table billing.queuebox_inbox_messages does not exist'],
      steps,
    });
    // Schema version 1: the inbox's key column was aggregate_key.
    const v1 = {
      outbox: OUTBOX_COLUMNS,
      inbox: [...INBOX_COLUMNS.filter((column) => column !== 'ordering_key'), 'aggregate_key'],
    };
    expect(schemaGaps(steps, v1, custom)).toEqual({
      problems: ['table billing.queuebox_inbox_messages has no column ordering_key'],
      steps: [steps[2]],
    });
    expect(
      schemaGaps(
        steps,
        {
          outbox: OUTBOX_COLUMNS.filter((column) => column !== 'attempts' && column !== 'state'),
          inbox: INBOX_COLUMNS,
        },
        custom,
      ).problems,
    ).toEqual(['table billing.billing_outbox has no columns state and attempts']);
  });

  it('expects on SQL Server exactly the columns its migrations create (PostgreSQL: test/integration/pg/startup-tables.spec.ts)', () => {
    const declared = (table: 'outbox' | 'inbox') =>
      mssqlSchemaSteps(defaults).flatMap((step) => step.columns[table] ?? []);
    expect(createdColumns(createOutboxTable(defaults)[0])).toEqual(declared('outbox'));
    expect(createdColumns(createInboxTable(defaults)[0])).toEqual(declared('inbox'));
  });

  it('names, for each database, a constant of queuebox/migrations that holds its migrations for the default tables', () => {
    for (const profile of dialectProfiles) {
      const constant = (migrations as Record<string, unknown>)[profile.schema.defaultMigrations] as { name: string }[];
      expect(
        constant.map((migration) => migration.name),
        profile.name,
      ).toEqual(createQueueBoxMigrations({ type: profile.name }).map((migration) => migration.name));
    }
  });

  it('tells how to add the migrations: the constant for the default names, the factory with the names for others', () => {
    const database = { type: 'postgres', defaultMigrations: 'QueueBoxPostgresMigrations' };
    const problems = ['table queuebox_outbox_messages does not exist'];
    const plain = missingMigrations('PostgreSQL', database, defaults, problems, ['QueueBoxOutbox1764460800000']);
    expect(plain).toContain('add QueueBoxPostgresMigrations from "queuebox/migrations"');
    expect(plain).toContain("createQueueBoxMigrations({ type: 'postgres', schema, tables }) for other table names");
    expect(plain).toContain('The migration QueueBoxOutbox1764460800000 has not run there');
    expect(plain).toContain('without a schema');
    const named = missingMigrations('PostgreSQL', database, custom, problems, ['a', 'b']);
    expect(named).toContain(
      "add createQueueBoxMigrations({ type: 'postgres', schema: 'billing', tables: { outbox: 'billing_outbox' } }) from \"queuebox/migrations\"",
    );
    expect(named).not.toContain('QueueBoxPostgresMigrations');
    expect(named).toContain('The migrations a and b have not run there');
    expect(named).toContain('(looked up in schema billing)');
  });

  it('validates the startup options, naming the field', () => {
    expect(resolveOptions({}).startup).toEqual({ waitForMigrations: false, checkIntervalMs: 5_000 });
    expect(resolveOptions({ startup: { waitForMigrations: true, checkIntervalMs: 250 } }).startup).toEqual({
      waitForMigrations: true,
      checkIntervalMs: 250,
    });
    expect(() => resolveOptions({ startup: { waitForMigrations: 'yes' as never } })).toThrow(
      InvalidQueueBoxOptionsError,
    );
    expect(() => resolveOptions({ startup: { waitForMigrations: 'yes' as never } })).toThrow(
      /"startup.waitForMigrations" is "yes"; it must be true or false/,
    );
    expect(() => resolveOptions({ startup: { checkIntervalMs: 5 } })).toThrow(/"startup.checkIntervalMs" is 5/);
    expect(() => resolveOptions({ startup: { waitForMigration: true } as never })).toThrow(
      /"startup.waitForMigration" is not an option.*did you mean "waitForMigrations"/,
    );
  });
});
