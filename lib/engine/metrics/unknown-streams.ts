import { Injectable, Logger } from '@nestjs/common';
import type { BacklogRow } from '../../database/statement-results.js';
import type { QueueBoxTable } from '../../shared/interfaces/claim.interface.js';
import { SourceLabels } from './source-labels.js';
import { DestinationLabels } from './destination-labels.js';
import { unknownStreamRows, unknownStreamsUnnamed } from '../../shared/queuebox.messages.js';
import { OTHER_LABEL } from './other-label.js';
import { QueueBoxMetrics } from './queuebox-metrics.service.js';
import { QUEUEBOX_TABLES } from '../../shared/queuebox.claimers.js';

/** Streams of one table named in a warning, at most: the set stays bounded, and so does the log. */
const MAX_NAMED = 20;

/**
 * The pending rows this instance leaves to others because it does not know their stream: an
 * outbox destination it does not have configured, an inbox source it neither declares, routes
 * nor pulls (the `_other` of the label classes). Its claims never take them (docs/guides/
 * production.md, "Rolling deploys"). Fed by the backlog samples the loops take anyway, so the
 * claim path does no work for it: a gauge per table, and one warning per stream for the life of
 * the process (the first {@link MAX_NAMED} streams by name, then one line for the rest).
 */
@Injectable()
export class UnknownStreams {
  private readonly logger = new Logger('QueueBox');
  private readonly warned: Record<QueueBoxTable, Set<string>> = { outbox: new Set(), inbox: new Set() };
  private readonly unnamed: Record<QueueBoxTable, boolean> = { outbox: false, inbox: false };
  /** The bounded label values of each table's streams: `_other` is a stream this instance does not know. */
  private readonly labels: Record<QueueBoxTable, { of(stream: unknown): string }>;

  constructor(
    private readonly metrics: QueueBoxMetrics,
    destinations: DestinationLabels,
    sources: SourceLabels,
  ) {
    this.labels = { outbox: destinations, inbox: sources };
  }

  /** A backlog sample of `table` (pending rows per destination or source). */
  sampled(table: QueueBoxTable, rows: readonly BacklogRow[]): void {
    const labels = this.labels[table];
    let pending = 0;
    for (const row of rows) {
      if (row.pending === 0 || labels.of(row.label) !== OTHER_LABEL) continue;
      pending += row.pending;
      this.warnOnce(table, row);
    }
    this.metrics.unknownStreamBacklog(table, pending);
  }

  private warnOnce(table: QueueBoxTable, row: BacklogRow): void {
    const warned = this.warned[table];
    if (warned.has(row.label)) return;
    if (warned.size < MAX_NAMED) {
      warned.add(row.label);
      this.logger.warn(unknownStreamRows(table, row.label, row.pending), {
        table,
        [QUEUEBOX_TABLES[table].stream]: row.label,
        pending: row.pending,
      });
    } else if (!this.unnamed[table]) {
      this.unnamed[table] = true;
      this.logger.warn(unknownStreamsUnnamed(table, MAX_NAMED));
    }
  }
}
