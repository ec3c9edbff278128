import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { ClaimTable, SqlDialect } from '../dialects/sql-dialect.interface.js';
import { InvalidArgumentError } from '../errors/invalid-argument.error.js';
import type { DeadLetterQuery } from '../interfaces/dead-letter.interface.js';
import { QUEUEBOX_DATA_SOURCE, QUEUEBOX_SQL_DIALECT } from '../queuebox.constants.js';
import { invalidInteger, invalidRowId } from '../queuebox.messages.js';
import { runStatement } from './run-statement.js';

const MAX_PAGE = 1_000;
const BIGINT = /^[0-9]{1,19}$/;

/** Lists and replays dead rows of the outbox and the inbox (used by their public services). */
@Injectable()
export class DeadLetterRepository {
  constructor(
    @Inject(QUEUEBOX_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  list<Row>(table: ClaimTable, query: DeadLetterQuery = {}): Promise<Row[]> {
    const after = query.after ?? '0';
    const limit = query.limit ?? 100;
    if (!BIGINT.test(after)) throw new InvalidArgumentError('after', invalidRowId('after'));
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new InvalidArgumentError('limit', invalidInteger('limit', 1, MAX_PAGE));
    return runStatement<Row>(this.dataSource, this.dialect.listDead(table, after, limit));
  }

  async replay(table: ClaimTable, ids: readonly string[]): Promise<string[]> {
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string' || !BIGINT.test(id))) {
      throw new InvalidArgumentError('ids', invalidRowId('ids', true));
    }
    if (ids.length === 0) return [];
    const rows = await runStatement<{ id: string }>(this.dataSource, this.dialect.replayDead(table, ids));
    // In id order: UPDATE ... RETURNING gives rows in no defined order.
    return rows.map((row) => String(row.id)).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  }
}
