import { CliUsageError } from '../../../shared/errors/cli-usage.error.js';
import type {
  DeadLetterBatchResult,
  DeadLetterFilter,
  DeadLetterSelection,
  QueueBoxTable,
} from '../../../shared/interfaces/admin.interface.js';
import type { DeadInboxMessage, DeadOutboxMessage } from '../../../shared/interfaces/dead-letter.interface.js';
import { asFlagErrors } from '../admin-errors.js';
import type { CliCommand } from '../cli-command.interface.js';
import {
  CONNECTION_FLAGS,
  OUTPUT_FLAGS,
  parseFlags,
  readEnumFlag,
  readIdsFlag,
  readInstantFlag,
  readIntFlag,
  readTableFlags,
  readTextFlag,
} from '../cli-flags.js';
import {
  confirmationRequired,
  filterForOtherTable,
  idsWithFilter,
  selectionRequired,
  unexpectedArgument,
} from '../cli.messages.js';
import { DATABASE_URL_VARIABLE, parseConnectionUrl } from '../connection-url.js';
import { counted } from '../counted.js';
import { textTable } from '../text-table.js';
import { QUEUEBOX_TABLES, STREAM_FIELDS } from '../../../shared/queuebox.claimers.js';

const FLAGS = {
  ...CONNECTION_FLAGS,
  table: { type: 'string' },
  destination: { type: 'string' },
  source: { type: 'string' },
  error: { type: 'string' },
  since: { type: 'string' },
  before: { type: 'string' },
  after: { type: 'string' },
  limit: { type: 'string' },
  ids: { type: 'string' },
  all: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  'chunk-size': { type: 'string' },
  ...OUTPUT_FLAGS,
} as const;

const ACTIONS = ['list', 'replay', 'discard'] as const;
type Action = (typeof ACTIONS)[number];

/** Most ids one invocation takes; more go by filter. */
const MAX_IDS = 10_000;
/** Who the dead-letter service's log line names for the CLI's mutations. */
const ACTOR = 'queuebox-cli';

/**
 * `queuebox dead list|replay|discard`: the dead letters of the outbox or the inbox, through
 * `DeadLetterService`. Replay and discard change rows, so they need `--yes`, and a selection:
 * `--ids`, a filter, or `--all`.
 */
export const deadCommand: CliCommand = {
  name: 'dead',
  summary: 'list, replay or discard dead letters of the outbox or the inbox',
  usage: `Usage: queuebox dead list    --url <url> [--table outbox|inbox] [filters] [--after <id>] [--limit <n>] [--json]
       queuebox dead replay  --url <url> [--table outbox|inbox] (--ids <id,…> | filters | --all) --yes [--chunk-size <n>] [--json]
       queuebox dead discard --url <url> [--table outbox|inbox] (--ids <id,…> | filters | --all) --yes [--chunk-size <n>] [--json]

  list      a page of dead rows, oldest first (no payloads); --after <id> gives the next page
  replay    makes the selected dead rows pending again, now, in chunks (message ids kept)
  discard   deletes the selected dead rows, in chunks

  --url            postgres://… or mssql://… (default: $${DATABASE_URL_VARIABLE}); the scheme picks the database
  --schema, --outbox-table, --inbox-table   the names given to QueueBoxModule
  --table          outbox (default) or inbox
Filters (all given ones must match):
  --destination    outbox rows of this destination
  --source         inbox rows of this source
  --error          last error containing this text (case-insensitive)
  --since          dead at or after this ISO 8601 instant (2026-01-31T12:00:00Z)
  --before         dead before this instant
Selection and paging:
  --ids            row ids, comma-separated (replay, discard)
  --all            every dead row of the table (replay, discard)
  --after, --limit keyset paging of list (limit 1 to 1000, default 100)
  --chunk-size     rows per statement of replay and discard (1 to 1000, default 500)
  --yes, -y        confirm a replay or discard
  --json           the page or the result as JSON`,
  async run(args, { env }) {
    const { values, positionals } = parseFlags('dead', args, FLAGS, 1);
    const action = readAction(positionals[0]);
    const table = readEnumFlag(values.table, '--table', 'outbox', ['outbox', 'inbox'] as const);
    const filter = readFilter(values, table);
    const hasFilter = Object.values(filter).some((value) => value !== undefined);
    const connection = parseConnectionUrl(values.url ?? env[DATABASE_URL_VARIABLE]);
    const tables = readTableFlags(values);

    if (action === 'list') {
      for (const flag of ['ids', 'all', 'yes', 'chunk-size'] as const)
        if (values[flag] !== undefined) throw new CliUsageError(`--${flag}`, unexpectedFlag(flag, 'list'));
      const limit = readIntFlag(values.limit, '--limit', 100, 1, 1_000);
      const after = readIdsFlag(values.after, '--after', 1)?.[0];
      const { withQueueBox } = await import('../queuebox-context.js');
      const page = await withQueueBox(connection, tables, ({ deadLetters }) =>
        asFlagErrors(() => deadLetters.list(table, { ...filter, after, limit })),
      );
      const data = { table, items: page.items, ...(page.next === undefined ? {} : { next: page.next }) };
      return { data, text: listText(table, page.items as (DeadOutboxMessage | DeadInboxMessage)[], page.next) };
    }

    for (const flag of ['after', 'limit'] as const)
      if (values[flag] !== undefined) throw new CliUsageError(`--${flag}`, unexpectedFlag(flag, action));
    const ids = readIdsFlag(values.ids, '--ids', MAX_IDS);
    if (ids && (hasFilter || values.all)) throw new CliUsageError('--ids', idsWithFilter());
    if (!ids && !hasFilter && !values.all) throw new CliUsageError('--ids', selectionRequired(`dead ${action}`));
    if (!values.yes) throw new CliUsageError('--yes', confirmationRequired(`dead ${action}`));
    const chunkSize = readIntFlag(values['chunk-size'], '--chunk-size', 500, 1, 1_000);
    const selection: DeadLetterSelection = ids ? { ids } : { filter };
    const { withQueueBox } = await import('../queuebox-context.js');
    const result = await withQueueBox(connection, tables, ({ deadLetters }) =>
      asFlagErrors(() =>
        action === 'replay'
          ? deadLetters.replay(table, selection, { chunkSize, actor: ACTOR })
          : deadLetters.discard(table, selection, { chunkSize, actor: ACTOR }),
      ),
    );
    return { data: { table, action, ...result }, text: resultText(table, action, result, chunkSize) };
  },
};

function readAction(value: string | undefined): Action {
  if (value === undefined)
    throw new CliUsageError('<action>', `"queuebox dead" needs an action: ${ACTIONS.join(', ')}.`);
  if (!ACTIONS.includes(value as Action)) throw new CliUsageError(value, unexpectedArgument(value, 'dead'));
  return value as Action;
}

const unexpectedFlag = (flag: string, action: string): string =>
  `flag --${flag} does not apply to "queuebox dead ${action}".`;

function readFilter(
  values: { destination?: string; source?: string; error?: string; since?: string; before?: string },
  table: QueueBoxTable,
): DeadLetterFilter {
  for (const stream of STREAM_FIELDS) {
    if (stream !== QUEUEBOX_TABLES[table].stream && values[stream] !== undefined)
      throw new CliUsageError(`--${stream}`, filterForOtherTable(`--${stream}`, table));
  }
  return {
    destination: readTextFlag(values.destination, '--destination', 200),
    source: readTextFlag(values.source, '--source', 200),
    errorContains: readTextFlag(values.error, '--error', 200),
    deadSince: readInstantFlag(values.since, '--since'),
    deadBefore: readInstantFlag(values.before, '--before'),
  };
}

function listText(
  table: QueueBoxTable,
  items: readonly (DeadOutboxMessage | DeadInboxMessage)[],
  next: string | undefined,
): string {
  if (items.length === 0) return `No dead ${table} rows match.`;
  const rows = items.map((item) => [
    item.id,
    'destination' in item ? item.destination : item.source,
    item.key,
    item.attempts,
    item.finishedAt?.toISOString(),
    item.lastError,
  ]);
  const header = ['ID', QUEUEBOX_TABLES[table].stream.toUpperCase(), 'KEY', 'ATTEMPTS', 'DEAD SINCE', 'LAST ERROR'];
  return `${textTable(header, rows)}${next === undefined ? '' : `\n\nMore: add --after ${next}`}`;
}

/**
 * What a replay or discard did. The statements are counted as such, not as "chunks" of the rows:
 * a walk by filter ends with a statement that finds nothing, so 1 row takes 2 statements.
 */
function resultText(
  table: QueueBoxTable,
  action: Exclude<Action, 'list'>,
  result: DeadLetterBatchResult,
  chunkSize: number,
): string {
  const statements = `${counted(result.chunks, 'statement')} of at most ${counted(chunkSize, 'row')}`;
  if (result.count === 0)
    return `No dead ${table} row was ${action === 'replay' ? 'replayed' : 'discarded'} (${statements}): none matched, or they were no longer dead.`;
  return `${action === 'replay' ? 'Replayed' : 'Discarded'} ${counted(result.count, `dead ${table} row`)} (${statements}).`;
}
