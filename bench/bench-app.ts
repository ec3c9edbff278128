import 'reflect-metadata';
import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type Provider,
  type INestApplicationContext,
  type OnModuleInit,
} from '@nestjs/common';
import { ModuleRef, NestFactory } from '@nestjs/core';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ClaimRepository, type FencedWriteOptions } from '../lib/engine/claim.repository.js';
import type { ClaimedInboxRow, ClaimedOutboxRow } from '../lib/database/statement-results.js';
import type { Claim } from '../lib/shared/interfaces/claim.interface.js';
import {
  OutboxService,
  QueueBoxModule,
  type OutboxMessage,
  type OutboxPublisher,
  type QueueBoxModuleOptions,
} from '../lib/index.js';
import { StatementTimer, sleep } from './bench-stats.js';

/** A publisher that does nothing but count, and tell `onPublish` (set by the scenario). */
@Injectable()
export class NoopPublisher implements OutboxPublisher {
  published = 0;
  onPublish?: (message: OutboxMessage) => void;

  publish(message: OutboxMessage): Promise<void> {
    this.published += 1;
    this.onPublish?.(message);
    return Promise.resolve();
  }
}

/** Timers wrapped around the ClaimRepository's statements (the bench's instrumentation, not lib code). */
export interface RepositoryTimers {
  claim: StatementTimer;
  completeMany: StatementTimer;
  renew: StatementTimer;
  reclaim: StatementTimer;
  /** performance.now() when the first claim statement started. */
  firstClaimAt?: number;
  /** Called once, as the first claim statement starts (a run's clocks start there). */
  onFirstClaim?: () => void;
  /** Rows marked sent by completeMany, as they come back. */
  sent: number;
  onSent?: (total: number) => void;
  /**
   * Rows a statement claimed, with when it started and returned (epoch ms, for the latency stage
   * breakdown): `claim` by an outbox claim, `hand-off` by a completion that claimed its key's next row.
   */
  onClaimed?: (
    rows: readonly ClaimedOutboxRow[],
    startedAt: number,
    returnedAt: number,
    via: 'claim' | 'hand-off',
  ) => void;
  /** An outbox claim statement failed (a statement timeout, a lost connection), with when it started and failed (epoch ms). */
  onClaimFailed?: (startedAt: number, failedAt: number, error: unknown) => void;
}

const epochNow = (): number => performance.timeOrigin + performance.now();

const REPOSITORY_TIMERS = Symbol('REPOSITORY_TIMERS');

/**
 * Wraps the repository's statement methods before any loop starts (onModuleInit runs before
 * every onApplicationBootstrap), so the first claim is timed too.
 */
@Injectable()
class RepositoryInstrumentation implements OnModuleInit {
  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(REPOSITORY_TIMERS) private readonly timers: RepositoryTimers,
  ) {}

  onModuleInit(): void {
    // Not exported by QueueBoxModule: found across modules.
    const repo = this.moduleRef.get(ClaimRepository, { strict: false });
    const timers = this.timers;
    const claimOutbox = repo.claimOutbox.bind(repo);
    const completeMany = repo.completeMany.bind(repo);
    const renew = repo.renew.bind(repo);
    const reclaimExpired = repo.reclaimExpired.bind(repo);
    repo.claimOutbox = (...args) => {
      if (timers.firstClaimAt === undefined) {
        timers.firstClaimAt = performance.now();
        timers.onFirstClaim?.();
      }
      const startedAt = epochNow();
      const claimed = timers.claim.time(
        () => claimOutbox(...args),
        (result) => {
          timers.onClaimed?.(result.rows, startedAt, epochNow(), 'claim');
          return result.rows.length;
        },
      );
      // A branch of its own: the caller still gets the rejection.
      claimed.catch((error: unknown) => timers.onClaimFailed?.(startedAt, epochNow(), error));
      return claimed;
    };
    repo.completeMany = async <Row = ClaimedOutboxRow | ClaimedInboxRow>(
      claims: readonly Claim[],
      handOffLeaseMs?: number,
      options?: FencedWriteOptions,
    ) => {
      const startedAt = epochNow();
      const result = await timers.completeMany.time(
        () => completeMany<Row>(claims, handOffLeaseMs, options),
        (done) => claims.length - done.lost.length,
      );
      if (result.claimed.length > 0)
        timers.onClaimed?.(result.claimed as ClaimedOutboxRow[], startedAt, epochNow(), 'hand-off');
      timers.sent += claims.length - result.lost.length;
      timers.onSent?.(timers.sent);
      return result;
    };
    repo.renew = (claim) =>
      timers.renew.time(
        () => renew(claim),
        () => 1,
      );
    repo.reclaimExpired = (table) =>
      timers.reclaim.time(
        () => reclaimExpired(table),
        (n) => n,
      );
  }
}

export interface BenchApp {
  app: INestApplicationContext;
  dataSource: DataSource;
  outbox: OutboxService;
  publisher: NoopPublisher;
  timers: RepositoryTimers;
  close(): Promise<void>;
}

export interface BenchAppOptions {
  url: string;
  schema: string;
  poolSize: number;
  queuebox: Omit<QueueBoxModuleOptions, 'schema' | 'destinations'>;
  /**
   * An experiment (QUEUEBOX_BENCH_CONSUMER_ASYNC_COMMIT): the application's connections commit
   * with synchronous_commit off, as QueueBox's claims and completions could (sql.md: a lost
   * claim or mark is a reclaim and a duplicate the spec allows). Never for a producer or a pull worker.
   */
  asyncCommit?: boolean;
  /** The pool's application_name (pg_stat_activity tells the producer's backends from the consumer's). */
  applicationName?: string;
  /** More providers of the application (a `@PullWorker` class). */
  providers?: Provider[];
  /** Called before the loops start (to set `onPublish`, `timers.onSent`). */
  prepare?(publisher: NoopPublisher, timers: RepositoryTimers): void;
}

/**
 * A Nest application context as a service would have it: TypeOrmModule (its own pool) and
 * QueueBoxModule.forRoot with one custom destination `noop` resolved through DI.
 */
export async function startBenchApp(options: BenchAppOptions): Promise<BenchApp> {
  const publisher = new NoopPublisher();
  const timers: RepositoryTimers = {
    claim: new StatementTimer(),
    completeMany: new StatementTimer(),
    renew: new StatementTimer(),
    reclaim: new StatementTimer(),
    sent: 0,
  };
  options.prepare?.(publisher, timers);

  @Module({})
  class BenchRootModule {
    static forRoot(): DynamicModule {
      return {
        module: BenchRootModule,
        imports: [
          TypeOrmModule.forRoot({
            type: 'postgres',
            url: options.url,
            schema: options.schema,
            extra: { max: options.poolSize, ...(options.asyncCommit ? { options: '-c synchronous_commit=off' } : {}) },
            ...(options.applicationName ? { applicationName: options.applicationName } : {}),
          }),
          QueueBoxModule.forRoot({
            schema: options.schema,
            ...options.queuebox,
            destinations: { noop: { type: 'custom', publisher: NoopPublisher } },
          }),
        ],
        providers: [
          { provide: NoopPublisher, useValue: publisher },
          { provide: REPOSITORY_TIMERS, useValue: timers },
          RepositoryInstrumentation,
          ...(options.providers ?? []),
        ],
      };
    }
  }

  const app = await NestFactory.createApplicationContext(BenchRootModule.forRoot(), { logger: ['error', 'warn'] });
  return {
    app,
    dataSource: app.get<DataSource>(getDataSourceToken()),
    outbox: app.get(OutboxService),
    publisher,
    timers,
    close: async () => {
      // Lets a coalesced wake-up NOTIFY that is still due (outbox.notify.coalesceMs, 20 ms) finish
      // first: QueueBox's shutdown does not wait for one in flight, and TypeORM's pool shutdown
      // then fails it with "wake-up NOTIFY failed: Connection terminated" (reported, not fixed here).
      await sleep(100);
      await app.close();
    },
  };
}
