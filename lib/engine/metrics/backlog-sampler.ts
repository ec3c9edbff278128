import type { StatementRunner } from '../../database/statement-runner.js';
import type { SqlStatement } from '../../database/sql-dialect.interface.js';
import type { BacklogRow } from '../../database/statement-results.js';

/**
 * Samples a backlog statement into gauges. Only the configured label values are reported, so
 * the label set stays bounded; a value with nothing pending reads 0. Resolves to every row of the
 * sample (the rows of other label values too: `UnknownStreams` counts them).
 */
export class BacklogSampler {
  constructor(
    private readonly runner: StatementRunner,
    private readonly statement: () => SqlStatement<BacklogRow[]>,
    private readonly labels: () => Iterable<string>,
    private readonly record: (label: string, pending: number, oldestAgeSeconds: number) => void,
  ) {}

  async sample(): Promise<readonly BacklogRow[]> {
    const rows = await this.runner.run(this.statement());
    const byLabel = new Map(rows.map((row) => [row.label, row]));
    for (const label of this.labels()) {
      const row = byLabel.get(label);
      this.record(label, row?.pending ?? 0, row?.oldestAgeSeconds ?? 0);
    }
    return rows;
  }
}
