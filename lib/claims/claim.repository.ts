import { Inject, Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { ClaimTable, SqlDialect, SqlStatement } from '../dialects/sql-dialect.interface.js';
import { QUEUEBOX_DATA_SOURCE, QUEUEBOX_SQL_DIALECT } from '../queuebox.constants.js';
import type { Claim, ClaimComponent, FenceResult } from '../interfaces/claim.interface.js';
import type { ClaimedInboxRow } from './claimed-inbox-row.interface.js';
import type { ClaimedOutboxRow } from './claimed-outbox-row.interface.js';
import { runStatement } from './run-statement.js';

/** Longest error text kept on a row: enough to diagnose, bounded so a huge stack cannot bloat it. */
const MAX_ERROR_LENGTH = 4_000;
/** Rows returned to pending per reclaim statement; the step loops while a statement fills it. */
const RECLAIM_CHUNK = 1_000;

/** Options of a fenced write. */
export interface FencedWriteOptions {
  /** Run in this transaction (a pull worker's business change); autocommit when omitted. */
  manager?: EntityManager;
}

/**
 * The only class that executes claim and fence SQL. Claims return rows with fresh tokens;
 * fenced writes return `'ok'` or `'lost'` from the rows they changed and never throw on a loss.
 * Every time is computed by the database clock inside the statements.
 */
@Injectable()
export class ClaimRepository {
  constructor(
    @Inject(QUEUEBOX_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  /**
   * Claims up to `batchSize` outbox rows: at most one per key, the oldest unfinished of each.
   * With `lock`, the claim runs in a short transaction after the claim lock (its own statement).
   */
  async claimOutbox(batchSize: number, leaseMs: number, options: { lock: boolean }): Promise<ClaimedOutboxRow[]> {
    const claim = this.dialect.claimOutbox(batchSize, leaseMs);
    if (!options.lock) return this.run<ClaimedOutboxRow>(claim);
    return this.inTransaction([...this.dialect.claimLock('outbox')], claim);
  }

  /**
   * The inbox relay's claim: up to `batchSize` rows of the routed sources, at most one per
   * aggregate, the oldest unfinished of each, always after the relay claim lock.
   */
  claimInbox(sources: readonly string[], batchSize: number, leaseMs: number): Promise<ClaimedInboxRow[]> {
    return this.inTransaction([...this.dialect.claimLock('inbox')], this.dialect.claimInbox(sources, batchSize, leaseMs));
  }

  /**
   * A pull claim of `source`: pending rows that are due and processing rows whose lease expired,
   * in one statement, at most one per aggregate. With `lock`, after the per-source claim lock.
   */
  async claimPull(source: string, batchSize: number, leaseMs: number, options: { lock: boolean }): Promise<ClaimedInboxRow[]> {
    const claim = this.dialect.claimPull(source, batchSize, leaseMs);
    if (!options.lock) return this.run<ClaimedInboxRow>(claim);
    return this.inTransaction([...this.dialect.pullClaimLock(source)], claim);
  }

  /** Extends the lease from the database clock. */
  renew(claim: Claim): Promise<FenceResult> {
    return this.fenced(this.dialect.renew(tableOf(claim.component), claim, claim.leaseMs));
  }

  /** Marks the row finished (`sent` / `processed`). */
  complete(claim: Claim, options: FencedWriteOptions = {}): Promise<FenceResult> {
    return this.fenced(this.dialect.complete(tableOf(claim.component), claim), options.manager);
  }

  /**
   * Marks many rows finished in one statement, each fenced by its own token. Returns the claims
   * that were lost (their rows were not changed) and whether any finished row has a younger
   * pending row of its key or aggregate (which may be claimable now).
   */
  async completeMany(claims: readonly Claim[]): Promise<{ lost: Claim[]; successorsPending: boolean }> {
    if (claims.length === 0) return { lost: [], successorsPending: false };
    const done = await this.run<{ id: string; has_successor: boolean }>(this.dialect.completeMany(tableOf(claims[0].component), claims));
    const changed = new Set(done.map((row) => String(row.id)));
    return { lost: claims.filter((claim) => !changed.has(claim.id)), successorsPending: done.some((row) => row.has_successor) };
  }

  /** Returns the row to `pending`, due after `delayMs` by the database clock. */
  retry(claim: Claim, delayMs: number, error: string, options: FencedWriteOptions = {}): Promise<FenceResult> {
    const statement = this.dialect.retry(tableOf(claim.component), claim, Math.round(delayMs), truncate(error));
    return this.fenced(statement, options.manager);
  }

  /** Marks the row `dead`, keeping the error. */
  deadLetter(claim: Claim, error: string, options: FencedWriteOptions = {}): Promise<FenceResult> {
    return this.fenced(this.dialect.deadLetter(tableOf(claim.component), claim, truncate(error)), options.manager);
  }

  /**
   * Returns every expired claim of a table to `pending` (of the inbox: only rows of `sources`,
   * the relay's; pull claims take expired rows themselves); resolves to the number of rows.
   */
  async reclaimExpired(table: ClaimTable, sources?: readonly string[]): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await this.run(this.dialect.reclaimExpired(table, RECLAIM_CHUNK, sources));
      total += rows.length;
      if (rows.length < RECLAIM_CHUNK) return total;
    }
  }

  private async fenced(statement: SqlStatement, manager?: EntityManager): Promise<FenceResult> {
    const rows = await this.run(statement, manager);
    return rows.length === 1 ? 'ok' : 'lost';
  }

  private run<T>(statement: SqlStatement, manager?: EntityManager): Promise<T[]> {
    return runStatement<T>(this.dataSource, statement, manager);
  }

  /** Runs `before` then `last` on one connection in one transaction; returns the rows of `last`. */
  private async inTransaction<T>(before: SqlStatement[], last: SqlStatement): Promise<T[]> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      for (const statement of before) await runner.query(statement.sql, [...statement.params]);
      const result = await runner.query(last.sql, [...last.params], true);
      await runner.commitTransaction();
      return result.records as T[];
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }
}

function tableOf(component: ClaimComponent): ClaimTable {
  return component === 'outbox' ? 'outbox' : 'inbox';
}

function truncate(error: string): string {
  return error.length <= MAX_ERROR_LENGTH ? error : `${error.slice(0, MAX_ERROR_LENGTH - 1)}…`;
}
