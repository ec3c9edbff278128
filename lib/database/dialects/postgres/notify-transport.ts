import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { QueueBoxTable } from '../../../shared/interfaces/claim.interface.js';
import type { CommitWakeUp, WakeUpTransport } from '../../../shared/interfaces/wake-up-transport.interface.js';
import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import { errorText } from '../../../shared/errors/error-text.js';
import { StatementTimeoutError } from '../../../shared/errors/statement-timeout.error.js';
import type { StatementDeadline } from '../dialect-profile.interface.js';
import { withinDeadline } from '../statement-deadline.js';
import type { DriverRow } from '../../statement-results.js';
import { listenMovedSession } from '../../../shared/queuebox.messages.js';
import { type ListenSession, openDedicatedSession, openPooledSession } from './listen-session.js';
import * as notifySql from './notify.sql.js';

const RECONNECT_DELAY_MS = 2_000;
/**
 * How often the LISTEN connection proves it is alive: a connection cut without FIN or RST raises no
 * error, only a round trip notices it. Polling covers the wake-ups meanwhile.
 */
export const LISTEN_HEALTH_INTERVAL_MS = 10_000;
const TABLES: readonly QueueBoxTable[] = ['outbox', 'inbox'];

/** The channel of a table: QueueBox's, per (schema-qualified) table, so instances on other schemas do not wake each other. */
export function wakeChannel(tables: ResolvedTableNames, table: QueueBoxTable): string {
  const channel = ['queuebox', tables.schema, tables[table]].filter(Boolean).join('_');
  // PostgreSQL channel names are identifiers: 63 bytes at most.
  return channel.length <= 63 ? channel : `queuebox_${createHash('sha1').update(channel).digest('hex')}`;
}

/**
 * Wake-ups over LISTEN/NOTIFY (notify.sql.ts). The enqueue that opens a coalescing window carries its
 * NOTIFY in its insert (`withCommit`: delivered at commit, never on rollback). Every other wake-up is a
 * `pg_notify` run by `send` after the commits, at most one per window, since every notifying
 * transaction takes a database-wide lock at its commit.
 *
 * One connection LISTENs on both tables' channels (pooled, or to `notify.listenUrl`), reconnects after
 * a failure, and ignores its own instance's notifications. A health check that finds the channels gone
 * from a live connection means a transaction-mode pooler: listening stops for good and the loops poll.
 */
export class PostgresNotifyTransport implements WakeUpTransport {
  private readonly logger = new Logger('WakeUpHub');
  private readonly channels = new Map<string, QueueBoxTable>();
  private session?: ListenSession;
  /** The session's LISTENs have all answered: only then may a health check judge its channels. */
  private sessionListening = false;
  private retryTimer?: NodeJS.Timeout;
  private healthTimer?: NodeJS.Timeout;
  private checking = false;
  private closed = false;
  private sessionMoves = false;
  private onWake: (table: QueueBoxTable) => void = () => undefined;
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly tables: ResolvedTableNames,
    private readonly instanceId: string,
    private readonly deadline: StatementDeadline,
    private readonly listenUrl?: string,
  ) {
    for (const table of TABLES) this.channels.set(wakeChannel(tables, table), table);
  }

  async listen(onWake: (table: QueueBoxTable) => void): Promise<void> {
    this.onWake = onWake;
    this.closed = false;
    try {
      await this.connect();
    } catch (error) {
      this.logger.warn('LISTEN failed; relying on the poll interval until it reconnects', { error: errorText(error) });
      await this.dropSession(false);
      this.scheduleReconnect();
    }
  }

  /** The NOTIFY a write statement sends inside its transaction: delivered at its commit, or never. */
  withCommit(table: QueueBoxTable): CommitWakeUp {
    return { channel: wakeChannel(this.tables, table), sender: this.instanceId };
  }

  send(table: QueueBoxTable): Promise<void> {
    const sent = this.notify(wakeChannel(this.tables, table)).finally(() => this.sending.delete(sent));
    this.sending.add(sent);
    return sent;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    clearInterval(this.healthTimer);
    this.healthTimer = undefined;
    await Promise.allSettled(this.sending);
    await this.dropSession(true);
  }

  private async notify(channel: string): Promise<void> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await withinDeadline(runner, this.deadline.statementTimeoutMs, this.deadline.discard, () =>
        runner.query(notifySql.notify(), [channel, this.instanceId]),
      );
    } catch (error) {
      // Other replicas still poll; a failed wake-up costs latency, never a message.
      this.logger.warn('wake-up NOTIFY failed', { error: errorText(error) });
    } finally {
      await runner.release();
    }
  }

  private async connect(): Promise<void> {
    const session = this.listenUrl
      ? await openDedicatedSession(this.dataSource, this.listenUrl, this.deadline)
      : await openPooledSession(this.dataSource, this.deadline);
    if (this.closed) return session.close(true);
    this.session = session;
    this.sessionListening = false;
    session.client.on('notification', (message) => {
      const table = this.channels.get(message.channel);
      if (table && message.payload !== this.instanceId) this.onWake(table);
    });
    const lost = (error?: Error): void => {
      if (this.closed || this.session !== session) return;
      this.logger.warn('LISTEN connection lost; reconnecting', { error: error ? errorText(error) : 'ended' });
      void this.dropSession(false).then(() => this.scheduleReconnect());
    };
    session.client.on('error', lost);
    session.client.on('end', lost);
    for (const channel of this.channels.keys()) await session.query(notifySql.listen(channel));
    // NOTE: a check sent while a LISTEN is still under way (a server recovering answers slowly)
    // would see some channels missing and take a direct session for a pooled one.
    if (this.session === session) this.sessionListening = true;
    this.watchHealth();
    // Anything committed while no one listened is picked up now.
    for (const table of this.channels.values()) this.onWake(table);
  }

  private watchHealth(): void {
    if (this.healthTimer) return;
    this.healthTimer = setInterval(() => void this.checkHealth(), LISTEN_HEALTH_INTERVAL_MS);
    this.healthTimer.unref();
  }

  /**
   * A round trip that also asks which channels the session listens on: no answer or an error
   * replaces the connection; an answer without the channels means a pooler moved it (stop listening).
   */
  private async checkHealth(): Promise<void> {
    const session = this.session;
    if (this.closed || this.checking || !session || !this.sessionListening) return;
    this.checking = true;
    try {
      let rows: readonly DriverRow[];
      try {
        rows = await session.query(notifySql.listeningChannels());
      } catch (error) {
        if (this.closed || this.session !== session) return;
        this.logger.warn('LISTEN connection failed its health check; reconnecting', { error: errorText(error) });
        // Past the deadline the connection is discarded already; an error ends it here.
        if (!(error instanceof StatementTimeoutError)) session.discard();
        await this.dropSession(false);
        this.scheduleReconnect();
        return;
      }
      const listening = new Set(rows.map((row) => String(row.channel)));
      if (
        [...this.channels.keys()].every((channel) => listening.has(channel)) ||
        this.closed ||
        this.session !== session
      )
        return;
      this.sessionMoves = true;
      this.logger.warn(listenMovedSession(!session.pooled));
      clearInterval(this.healthTimer);
      this.healthTimer = undefined;
      await this.dropSession(true);
    } finally {
      this.checking = false;
    }
  }

  /**
   * One reconnect at a time: a connection failing during set-up both emits 'error' and fails its
   * LISTEN; two reconnects would open two LISTEN connections and orphan one.
   */
  private scheduleReconnect(): void {
    if (this.closed || this.sessionMoves || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connect().catch((error) => {
        this.logger.warn('LISTEN reconnect failed', { error: errorText(error) });
        void this.dropSession(false).then(() => this.scheduleReconnect());
      });
    }, RECONNECT_DELAY_MS);
    this.retryTimer.unref();
  }

  private async dropSession(healthy: boolean): Promise<void> {
    const session = this.session;
    this.session = undefined;
    this.sessionListening = false;
    await session?.close(healthy);
  }
}
