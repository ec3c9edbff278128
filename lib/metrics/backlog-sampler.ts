import type { DataSource } from 'typeorm';
import { runStatement } from '../claims/run-statement.js';
import type { SqlStatement } from '../dialects/sql-dialect.interface.js';

/** A row of a backlog statement: one label value with its pending count and oldest age. */
interface BacklogRow {
  label: string;
  pending: number;
  oldest_age_seconds: number;
}

/**
 * Samples a backlog statement into gauges. Only the configured label values are reported, so
 * the label set stays bounded; a value with nothing pending reads 0.
 */
export class BacklogSampler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly statement: () => SqlStatement,
    private readonly labels: () => Iterable<string>,
    private readonly record: (label: string, pending: number, oldestAgeSeconds: number) => void,
  ) {}

  async sample(): Promise<void> {
    const rows = await runStatement<BacklogRow>(this.dataSource, this.statement());
    const byLabel = new Map(rows.map((row) => [row.label, row]));
    for (const label of this.labels()) {
      const row = byLabel.get(label);
      this.record(label, row ? Number(row.pending) : 0, row ? Math.max(0, Number(row.oldest_age_seconds)) : 0);
    }
  }
}
