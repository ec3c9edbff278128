import type { DataSource } from 'typeorm';
import { runStatement } from '../claims/run-statement.js';
import type { SqlDialect } from '../dialects/sql-dialect.interface.js';
import type { QueueBoxMetrics } from '../metrics/queuebox-metrics.service.js';

/** Samples pending messages and the oldest pending age per destination into the gauges. */
export class OutboxBacklogSampler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly dialect: SqlDialect,
    private readonly metrics: QueueBoxMetrics,
    private readonly destinations: () => string[],
  ) {}

  async sample(): Promise<void> {
    const rows = await runStatement<{ destination: string; pending: number; oldest_age_seconds: number }>(this.dataSource, this.dialect.outboxBacklog());
    const seen = new Map(rows.map((row) => [row.destination, row]));
    // Only configured destinations become label values: the label set stays bounded.
    for (const destination of this.destinations()) {
      const row = seen.get(destination);
      this.metrics.outboxBacklogSample(destination, row ? Number(row.pending) : 0, row ? Math.max(0, Number(row.oldest_age_seconds)) : 0);
    }
  }
}
