import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type {
  ClaimOptions,
  ClaimPlan,
  ClaimRequest,
  QueueBoxTable,
  SqlDialect,
  SqlStatement,
} from '../database/sql-dialect.interface.js';
import type { ClaimedInboxRow, ClaimedOutboxRow, ClaimResult, CompletionRow } from '../database/statement-results.js';
import type { Claim, FenceResult } from '../shared/interfaces/claim.interface.js';
import { CLAIMERS } from '../shared/queuebox.claimers.js';
import { QUEUEBOX_SQL_DIALECT } from '../shared/queuebox.constants.js';
import { StatementRunner } from '../database/statement-runner.js';
import { OutageWatch } from './outage-watch.js';

/** Longest error text kept on a row: enough to diagnose, bounded so a huge stack cannot bloat it. */
const MAX_ERROR_LENGTH = 4_000;
/** Rows returned to pending per reclaim statement; the step loops while a statement fills it. */
const RECLAIM_CHUNK = 1_000;

export interface FencedWriteOptions {
  /** Run in this transaction (a pull worker's business change); autocommit when omitted. */
  manager?: EntityManager;
}

export interface CompletionOptions extends FencedWriteOptions {
  /** Outbox marks in autocommit only: skip the WAL flush (see `outbox.asyncMarks`). */
  asyncCommit?: boolean;
}

export interface CompletionResult<Row> {
  lost: Claim[];
  claimed: Row[];
}

const NO_PROGRESS = { windowRows: 0, walked: 0 } as const;

/**
 * The only class that runs claims and fenced writes. Fenced writes report lost claims and never throw
 * on a loss. Every time comes from the database clock; every statement comes from the dialect.
 */
@Injectable()
export class ClaimRepository {
  /** When the database answers again after an outage: the claim loops' error back-off ends then. */
  readonly outages: OutageWatch;

  constructor(
    private readonly runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {
    this.outages = new OutageWatch(() => this.runner.run(this.dialect.databaseNow()));
  }

  /** Claims outbox rows of `destinations` (contributing/claim-sql.md); with `lock`, after the claim lock. */
  claimOutbox(
    destinations: readonly string[],
    request: ClaimRequest,
    options: ClaimOptions,
  ): Promise<ClaimResult<ClaimedOutboxRow>> {
    return this.claim(this.dialect.claimOutbox(destinations, request, options));
  }

  claimInbox(sources: readonly string[], request: ClaimRequest): Promise<ClaimResult<ClaimedInboxRow>> {
    return this.claim(this.dialect.claimInbox(sources, request));
  }

  /** A pull claim of `source`, expired leases included. With `lock`, after the per-source claim lock. */
  claimPull(source: string, request: ClaimRequest, options: ClaimOptions): Promise<ClaimResult<ClaimedInboxRow>> {
    return this.claim(this.dialect.claimPull(source, request, options));
  }

  renew(claim: Claim): Promise<FenceResult> {
    return this.fenced(this.dialect.renew(claimedTable(claim), claim, claim.leaseMs));
  }

  /** Renews claims of one table; returns those lost. A row held by another transaction waits for the next renewal. */
  async renewMany(claims: readonly Claim[]): Promise<Claim[]> {
    if (claims.length === 0) return [];
    const rows = await this.runner.run(this.dialect.renewMany(claimedTable(claims[0]), claims, claims[0].leaseMs));
    const lost = new Set(rows.filter((row) => !row.renewed).map((row) => row.id));
    return claims.filter((claim) => lost.has(claim.id));
  }

  async complete(claim: Claim, options: FencedWriteOptions = {}): Promise<FenceResult> {
    const { lost } = await this.completeMany([claim], undefined, options);
    return lost.length === 0 ? 'ok' : 'lost';
  }

  /**
   * Marks rows finished, each fenced by its own token. With `handOffLeaseMs`, each finished key's next
   * row is claimed in the same statement and returned (the caller owns it now).
   */
  async completeMany<Row = ClaimedOutboxRow | ClaimedInboxRow>(
    claims: readonly Claim[],
    handOffLeaseMs?: number,
    options: CompletionOptions = {},
  ): Promise<CompletionResult<Row>> {
    if (claims.length === 0) return { lost: [], claimed: [] };
    const asyncCommit = options.asyncCommit === true && options.manager === undefined;
    const statement = this.dialect.completeMany(claims[0].component, claims, handOffLeaseMs, asyncCommit);
    const rows = (await this.write(statement, options.manager)) as CompletionRow<Row>[];
    const done = new Set<string>();
    const claimed: Row[] = [];
    for (const row of rows) {
      if (row.outcome === 'done') done.add(row.id);
      else claimed.push(row.row);
    }
    return { lost: claims.filter((claim) => !done.has(claim.id)), claimed };
  }

  retry(claim: Claim, delayMs: number, error: string, options: FencedWriteOptions = {}): Promise<FenceResult> {
    const statement = this.dialect.retry(claimedTable(claim), claim, Math.round(delayMs), truncate(error));
    return this.fenced(statement, options.manager);
  }

  deadLetter(claim: Claim, error: string, options: FencedWriteOptions = {}): Promise<FenceResult> {
    return this.fenced(this.dialect.deadLetter(claimedTable(claim), claim, truncate(error)), options.manager);
  }

  /** Returns expired claims to `pending` (inbox: only rows of `sources`); resolves to the number of rows. */
  async reclaimExpired(table: QueueBoxTable, sources?: readonly string[]): Promise<number> {
    let total = 0;
    for (;;) {
      const ids = await this.runner.run(this.dialect.reclaimExpired(table, RECLAIM_CHUNK, sources));
      total += ids.length;
      if (ids.length < RECLAIM_CHUNK) return total;
    }
  }

  private async fenced(statement: SqlStatement<string[]>, manager?: EntityManager): Promise<FenceResult> {
    const ids = await this.write(statement, manager);
    return ids.length === 1 ? 'ok' : 'lost';
  }

  /**
   * A deadlock victim outside a caller's transaction is run once more (the write rolled back whole,
   * the fence is checked again); in a caller's transaction the error is the caller's.
   */
  private async write<Result>(statement: SqlStatement<Result>, manager?: EntityManager): Promise<Result> {
    try {
      return await this.runner.run(statement, manager);
    } catch (error) {
      if (manager || this.dialect.classifyError(error) !== 'deadlock') throw error;
      return this.runner.run(statement);
    }
  }

  /**
   * Runs a claim as its plan says: probe (nothing due: no claim), then the claim alone or after the
   * claim lock. A claim that loses to another claimer (lock not granted, deadlock victim) claims nothing.
   */
  private async claim<Row>(plan: ClaimPlan<Row>): Promise<ClaimResult<Row>> {
    if (plan.probe && !(await this.runner.run(plan.probe)))
      return { rows: [], progress: NO_PROGRESS, skipped: 'nothing-due' };
    const { lock } = plan;
    try {
      if (!lock) return await this.runner.run(plan.claim);
      return await this.runner.transaction(plan.isolation, async (scope) => {
        for (const statement of lock.setup) await scope.run(statement);
        // Not granted: roll the claim transaction back (nothing was claimed) and skip this claim.
        if (!(await scope.run(lock.acquire))) throw new LockNotGranted();
        return scope.run(plan.claim);
      });
    } catch (error) {
      const contended =
        error instanceof LockNotGranted ||
        ['lock-not-granted', 'deadlock'].includes(this.dialect.classifyError(error) ?? '');
      if (contended) return { rows: [], progress: NO_PROGRESS, skipped: 'contended' };
      throw error;
    }
  }
}

/** A claim lock the database did not grant in time (its wait ended, or it was a deadlock victim). */
class LockNotGranted extends Error {}

function claimedTable(claim: Claim): QueueBoxTable {
  return CLAIMERS[claim.component].table.name;
}

function truncate(error: string): string {
  return error.length <= MAX_ERROR_LENGTH ? error : `${error.slice(0, MAX_ERROR_LENGTH - 1)}…`;
}
