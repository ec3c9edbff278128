import { Inject, Injectable } from '@nestjs/common';
import type { ClaimTable, SqlDialect } from '../dialects/sql-dialect.interface.js';
import { InvalidArgumentError } from '../errors/invalid-argument.error.js';
import type { DeadInboxMessage, DeadLetterQuery, DeadOutboxMessage } from '../interfaces/dead-letter.interface.js';
import { QUEUEBOX_SQL_DIALECT } from '../queuebox.constants.js';
import { invalidInteger, invalidRowId } from '../queuebox.messages.js';
import { StatementRunner } from './statement-runner.js';

const MAX_PAGE = 1_000;
const BIGINT = /^[0-9]{1,19}$/;

/** Lists and replays dead rows of the outbox and the inbox (used by their public services). */
@Injectable()
export class DeadLetterRepository {
  constructor(
    private readonly runner: StatementRunner,
    @Inject(QUEUEBOX_SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  async listOutbox(query: DeadLetterQuery = {}): Promise<DeadOutboxMessage[]> {
    const { after, limit } = page(query);
    return this.runner.run(this.dialect.listDeadOutbox(after, limit));
  }

  async listInbox(query: DeadLetterQuery = {}): Promise<DeadInboxMessage[]> {
    const { after, limit } = page(query);
    return this.runner.run(this.dialect.listDeadInbox(after, limit));
  }

  async replay(table: ClaimTable, ids: readonly string[]): Promise<string[]> {
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string' || !BIGINT.test(id))) {
      throw new InvalidArgumentError('ids', invalidRowId('ids', true));
    }
    if (ids.length === 0) return [];
    const replayed = await this.runner.run(this.dialect.replayDead(table, ids));
    // In id order: UPDATE ... RETURNING gives rows in no defined order.
    return replayed.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  }
}

function page(query: DeadLetterQuery): { after: string; limit: number } {
  const after = query.after ?? '0';
  const limit = query.limit ?? 100;
  if (!BIGINT.test(after)) throw new InvalidArgumentError('after', invalidRowId('after'));
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new InvalidArgumentError('limit', invalidInteger('limit', 1, MAX_PAGE));
  return { after, limit };
}
