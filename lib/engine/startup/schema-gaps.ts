import type { SchemaStep } from '../../database/dialects/schema-step.interface.js';
import type { QueueBoxTable } from '../../shared/interfaces/claim.interface.js';
import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';
import { columnsMissing, tableMissing } from '../../shared/queuebox.messages.js';
import type { TableColumns } from '../../database/statement-results.js';

/** What QueueBox's tables lack of its schema version: each problem in words, and the steps (migrations) whose work is missing. */
export interface SchemaGaps {
  problems: string[];
  steps: SchemaStep[];
}

const TABLES: readonly QueueBoxTable[] = ['outbox', 'inbox'];

/**
 * Compares the tables the start-up check found with the columns the schema steps bring. A table
 * that does not exist misses every step that brings its columns; a table that lacks a column
 * misses the step that brings it (an older schema version: a later migration has not run).
 * Columns QueueBox does not know of (the application's own) are no problem.
 */
export function schemaGaps(steps: readonly SchemaStep[], found: TableColumns, tables: ResolvedTableNames): SchemaGaps {
  const problems: string[] = [];
  const missing = new Set<SchemaStep>();
  for (const table of TABLES) {
    const columns = found[table];
    const bringing = steps.filter((step) => step.columns[table] !== undefined);
    if (!columns) {
      problems.push(tableMissing(tables, tables[table]));
      for (const step of bringing) missing.add(step);
      continue;
    }
    const lacking = bringing.flatMap((step) => {
      const absent = step.columns[table]!.filter((column) => !columns.includes(column));
      if (absent.length > 0) missing.add(step);
      return absent;
    });
    if (lacking.length > 0) problems.push(columnsMissing(tables, tables[table], lacking));
  }
  return { problems, steps: steps.filter((step) => missing.has(step)) };
}
