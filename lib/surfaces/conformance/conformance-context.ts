import { setTimeout as delay } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import { ClaimRepository } from '../../engine/claim.repository.js';
import { StatementRunner } from '../../database/statement-runner.js';
import type { OutboxInsertRow, SqlDialect } from '../../database/sql-dialect.interface.js';
import { uuidv7 } from '../../features/outbox/message-id.js';
import { ConformanceFailure } from './conformance-failure.js';
import { clockNotReached } from './conformance.messages.js';

/** How often a check looks at the database clock while it waits for it. */
const CLOCK_POLL_MS = 10;

/**
 * What every check works with: QueueBox's own repository and statements on the run's schema,
 * and the waits and inserts the checks share. Each check uses destinations and sources of its
 * own, so that none sees another's rows.
 */
export class ConformanceContext {
  readonly runner: StatementRunner;
  readonly repository: ClaimRepository;
  readonly dialect: SqlDialect;
  /** Statements run so far, and those of them that carried a time of the application's clock. */
  readonly statements = { run: 0, withApplicationTime: 0 };

  constructor(
    readonly dataSource: DataSource,
    dialect: SqlDialect,
    /** Concurrent claimers (connections) of the concurrency checks. */
    readonly connections: number,
    /** The longest wait of any check (the database clock to pass an instant, a notification). */
    readonly timeoutMs: number,
    /** Where the notify check listens (QueueBox's `notify.listenUrl`), else on a pooled connection. */
    readonly listenUrl?: string,
  ) {
    // The dialect as QueueBox uses it, with every statement's parameters looked at on the way:
    // the database-clock check reports whether any of them was an application time.
    const observed = Object.create(dialect) as SqlDialect;
    observed.execute = (runner, statement) => {
      this.statements.run += 1;
      if (statement.params.some(isApplicationTime)) this.statements.withApplicationTime += 1;
      return dialect.execute(runner, statement);
    };
    this.dialect = observed;
    this.runner = new StatementRunner(dataSource, observed);
    this.repository = new ClaimRepository(this.runner, observed);
  }

  /** The database clock, now. */
  databaseNow(): Promise<Date> {
    return this.runner.run(this.dialect.databaseNow());
  }

  /** Waits (polling the database clock) until it is past `instant`; resolves to the clock then. */
  async untilClockPast(instant: Date, what: string): Promise<Date> {
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const now = await this.databaseNow();
      if (now.getTime() > instant.getTime()) return now;
      if (Date.now() > deadline) throw new ConformanceFailure(clockNotReached(what, instant, now, this.timeoutMs));
      await delay(CLOCK_POLL_MS);
    }
  }

  /** Inserts outbox rows with QueueBox's own insert; returns their ids in the order of `rows`. */
  async insertOutbox(
    rows: readonly { destination: string; key: string | null; delayMs?: number }[],
  ): Promise<string[]> {
    const full: OutboxInsertRow[] = rows.map((row, i) => ({
      messageId: uuidv7(),
      destination: row.destination,
      key: row.key,
      headers: '{}',
      payload: JSON.stringify({ i }),
      delayMs: row.delayMs ?? 0,
    }));
    const ids = new Map((await this.runner.run(this.dialect.insertOutbox(full))).map((row) => [row.messageId, row.id]));
    return full.map((row) => ids.get(row.messageId)!);
  }
}

/** A time of the application's clock as a parameter: a Date, bare or in a typed parameter. */
function isApplicationTime(param: unknown): boolean {
  return (
    param instanceof Date ||
    (typeof param === 'object' && param !== null && (param as { value?: unknown }).value instanceof Date)
  );
}
