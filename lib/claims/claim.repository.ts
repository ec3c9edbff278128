import { Inject, Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { ClaimCursor, ClaimRequest, ClaimTable, SqlDialect, SqlStatement } from '../dialects/sql-dialect.interface.js';
import type { Claim, ClaimComponent, FenceResult } from '../interfaces/claim.interface.js';
import { QUEUEBOX_DATA_SOURCE, QUEUEBOX_SQL_DIALECT } from '../queuebox.constants.js';
import type { ClaimedInboxRow } from './claimed-inbox-row.interface.js';
import type { ClaimedOutboxRow } from './claimed-outbox-row.interface.js';
import { onRunner, runStatement } from './run-statement.js';

/** Longest error text kept on a row: enough to diagnose, bounded so a huge stack cannot bloat it. */
const MAX_ERROR_LENGTH = 4_000;
/** Rows returned to pending per reclaim statement; the step loops while a statement fills it. */
const RECLAIM_CHUNK = 1_000;

/** Options of a fenced write. */
export interface FencedWriteOptions {
  /** Run in this transaction (a pull worker's business change); autocommit when omitted. */
  manager?: EntityManager;
}

/** What a claim saw besides the rows it took: how far its window and its walk over keys went. */
export interface ClaimProgress {
  /** Rows in the window of oldest keyed rows (per source for the inbox: the fullest one). */
  windowRows: number;
  /** Keys walked, and the last one: where the next claim's walk starts. */
  walked: number;
  last?: ClaimCursor;
}

/** The rows a claim took, and its progress. */
export interface ClaimResult<Row> {
  rows: Row[];
  progress: ClaimProgress;
}

/** What a batched completion did: the claims that were lost, and the rows handed on to the caller. */
export interface CompletionResult<Row> {
  lost: Claim[];
  claimed: Row[];
}

/** A claim statement's row: the progress columns, then the claimed row's (all NULL when none). */
type ProgressRow<Row> = Row & { window_rows: number; cursor_stream: string | null; cursor_key: string | null; walked: number };

/**
 * The only class that executes claim and fence SQL. Claims return rows with fresh tokens;
 * fenced writes report which claims were lost and never throw on a loss. Every time is computed
 * by the database clock inside the statements.
 */
@Injectable()
export class ClaimRepository {
  constructor(
    @Inject(QUEUEBOX_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  /**
   * Claims outbox rows (docs/internals/claim-sql.md, "The claim"): at most one per key and
   * destination, the oldest unfinished of each. With `lock`, the claim runs in a short
   * transaction after the claim lock (its own statement).
   */
  claimOutbox(request: ClaimRequest, options: { lock: boolean }): Promise<ClaimResult<ClaimedOutboxRow>> {
    const claim = this.dialect.claimOutbox(request);
    return this.claimWith(options.lock ? this.dialect.claimLock('outbox') : [], claim);
  }

  /** The inbox relay's claim over the routed sources, always after the relay claim lock. */
  claimInbox(sources: readonly string[], request: ClaimRequest): Promise<ClaimResult<ClaimedInboxRow>> {
    return this.claimWith(this.dialect.claimLock('inbox'), this.dialect.claimInbox(sources, request));
  }

  /**
   * A pull claim of `source`: pending rows that are due and processing rows whose lease expired,
   * in one statement, at most one per key. With `lock`, after the per-source claim lock.
   */
  claimPull(source: string, request: ClaimRequest, options: { lock: boolean }): Promise<ClaimResult<ClaimedInboxRow>> {
    return this.claimWith(options.lock ? this.dialect.pullClaimLock(source) : [], this.dialect.claimPull(source, request));
  }

  /** Extends the lease from the database clock. */
  renew(claim: Claim): Promise<FenceResult> {
    return this.fenced(this.dialect.renew(tableOf(claim.component), claim, claim.leaseMs));
  }

  /**
   * Renews a group of claims of one table in one statement. Returns the claims found lost; a
   * claim whose row another transaction holds right now (its own completion) is left for the next
   * renewal, never waited for.
   */
  async renewMany(claims: readonly Claim[]): Promise<Claim[]> {
    if (claims.length === 0) return [];
    const rows = await this.run<{ id: string; renewed: boolean }>(this.dialect.renewMany(tableOf(claims[0].component), claims, claims[0].leaseMs));
    const lost = new Set(rows.filter((row) => !row.renewed).map((row) => String(row.id)));
    return claims.filter((claim) => lost.has(claim.id));
  }

  /** Marks the row finished (`sent` / `processed`); in `manager`'s transaction when given. */
  async complete(claim: Claim, options: FencedWriteOptions = {}): Promise<FenceResult> {
    const { lost } = await this.completeMany<never>([claim], undefined, options);
    return lost.length === 0 ? 'ok' : 'lost';
  }

  /**
   * Marks rows finished in one statement, each fenced by its own token. With `handOffLeaseMs`, the
   * next row of each finished key is claimed in the same statement and returned (the caller owns
   * it now, with that lease). All claims are of one component.
   */
  async completeMany<Row>(claims: readonly Claim[], handOffLeaseMs?: number, options: FencedWriteOptions = {}): Promise<CompletionResult<Row>> {
    if (claims.length === 0) return { lost: [], claimed: [] };
    const kind = claims[0].component === 'outbox' ? 'outbox' : claims[0].component === 'inbox' ? 'relay' : 'pull';
    const rows = await this.run<Row & { outcome: 'done' | 'claimed'; id: string }>(this.dialect.completeMany(kind, claims, handOffLeaseMs), options.manager);
    const done = new Set(rows.filter((row) => row.outcome === 'done').map((row) => String(row.id)));
    return { lost: claims.filter((claim) => !done.has(claim.id)), claimed: rows.filter((row) => row.outcome === 'claimed') };
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

  /** Runs the claim (after its lock statements, in one short transaction, when there are any). */
  private async claimWith<Row extends { id: string | null }>(lock: readonly SqlStatement[], claim: SqlStatement): Promise<ClaimResult<Row>> {
    const rows = lock.length === 0 ? await this.run<ProgressRow<Row>>(claim) : await this.inTransaction<ProgressRow<Row>>(lock, claim);
    const [first] = rows;
    return {
      rows: rows.filter((row) => row.id !== null),
      progress: {
        windowRows: first?.window_rows ?? 0,
        walked: first?.walked ?? 0,
        last: first?.cursor_stream != null ? { stream: first.cursor_stream, key: first.cursor_key ?? '' } : undefined,
      },
    };
  }

  /** Runs `before` then `last` on one connection in one transaction; returns the rows of `last`. */
  private async inTransaction<T>(before: readonly SqlStatement[], last: SqlStatement): Promise<T[]> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      for (const statement of before) await runner.query(statement.sql, [...statement.params]);
      const rows = await onRunner(runner, last);
      await runner.commitTransaction();
      return rows as T[];
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
