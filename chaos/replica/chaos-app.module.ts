import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { QueueBoxModule } from 'queuebox';
import { jobsWorkerFor } from './jobs-worker.js';
import { NaiveOutboxLoop } from './naive-outbox-loop.js';
import { Producer } from './producer.js';
import { REPLICA_CONFIG, replicaApplicationName, type ReplicaConfig } from './replica-config.js';

/** Retries as fast as the chaos needs: a failing sink answer must not park a message for minutes. */
const backoff = { initialDelayMs: 50, maxDelayMs: 500 };

/**
 * The chaos app, as a user would write it on QueueBox's public API: TypeORM on PostgreSQL, the
 * outbox to an HTTP sink (`direct`), the HTTP intake with two signed sources, the relay of
 * `feed` to the sink (`relayed`), a pull worker of `jobs`, and producers. In a control run the
 * replicas run no QueueBox worker; a naive loop works the outbox instead.
 */
@Module({})
export class ChaosAppModule {
  static forRoot(config: ReplicaConfig): DynamicModule {
    const providers: Provider[] = [{ provide: REPLICA_CONFIG, useValue: config }, Producer];
    providers.push(config.control ? NaiveOutboxLoop : jobsWorkerFor(config));
    return {
      module: ChaosAppModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: config.url,
          schema: config.schema,
          extra: { max: 10, application_name: replicaApplicationName(config.slot) },
        }),
        QueueBoxModule.forRoot({
          schema: config.schema,
          statementTimeoutMs: config.statementTimeoutMs,
          // Behind PgBouncer in transaction mode QueueBox finds the pooler itself (unnamed
          // statements); LISTEN goes to the session-mode database.
          ...(config.listenUrl ? { notify: { listenUrl: config.listenUrl } } : {}),
          intake: { path: 'inbox' },
          workers: { enabled: config.control === undefined, shutdownTimeoutMs: 2_000 },
          destinations: {
            direct: { type: 'http', url: `${config.sinkUrl}/direct`, timeoutMs: config.leaseMs * 3 },
            relayed: { type: 'http', url: `${config.sinkUrl}/relayed`, timeoutMs: config.leaseMs * 3 },
          },
          outbox: {
            claimTimeoutMs: config.leaseMs,
            maxAttempts: 1_000_000,
            pollIntervalMs: 250,
            backoff,
          },
          inbox: {
            sources: { feed: { secret: config.secrets.feed }, jobs: { secret: config.secrets.jobs } },
            relay: {
              routes: { feed: { destination: 'relayed' } },
              claimTimeoutMs: config.leaseMs,
              maxAttempts: 1_000_000,
              pollIntervalMs: 250,
              backoff,
            },
          },
        }),
      ],
      providers,
    };
  }
}
