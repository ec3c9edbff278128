/// <reference lib="dom" />
import type {
  Backlog,
  BacklogEntry,
  BlockedKey,
  ClaimsAtRisk,
  DeadLetterBatchResult,
  DeadLetterDetail,
  DeadLetterFilter,
  DeadLetterPage,
  LoopSnapshot,
  QueueBoxTable,
  RowStateRow,
} from '../../../shared/interfaces/admin.interface.js';
import type { DeadInboxMessage, DeadOutboxMessage } from '../../../shared/interfaces/dead-letter.interface.js';
import type { AdminPageClientSettings } from './admin-page-client-settings.js';

/*
 * The admin page's script, type-checked and linted with the rest of the package, run only in the
 * browser. The server never calls `adminPageClient`: admin-page.script.ts inlines its source text
 * (`Function.prototype.toString` of the compiled function) into the page. So everything it uses at
 * run time is declared inside it, and this file imports types only (erased when compiled); a
 * helper at the top level here would be missing in the page.
 */

/** An answer of the admin API as the page receives it: JSON, so its dates are ISO 8601 texts. */
type Json<T> = T extends Date
  ? string
  : T extends readonly (infer Item)[]
    ? Json<Item>[]
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;

/** The filter the page sends: its form's fields, as texts. */
type PageFilter = { -readonly [K in keyof DeadLetterFilter]?: string };

/** A row replayed from this page, followed until it is delivered or dead again. */
interface ReplayedRow {
  table: QueueBoxTable;
  id: string;
  state: RowStateRow['state'];
  attempts: number;
  /** Delivered or dead again: no longer asked for. */
  final: boolean;
}

/**
 * The admin page's behaviour: reports, dead letters, replays and discards, over the admin API
 * next to the page. The bearer token lives in a variable of this function only: never in the
 * URL, a cookie or storage. Every value is written with `textContent`, never as markup, and with
 * its control characters shown as escapes (`shown`).
 * Mutations ask for confirmation first, and go as JSON with the header `X-QueueBox-Admin: 1`,
 * which the API requires of them.
 */
export function adminPageClient(settings: AdminPageClientSettings): void {
  'use strict';

  /** An answer that was not 2xx: its status decides what the page says. */
  type HttpError = Error & { status?: number };
  /** The body of an error answer (AdminExceptionFilter). */
  interface ErrorBody {
    field?: string;
    message?: string;
  }

  const api = `${location.pathname.replace(/\/+$/, '')}/api/`;
  let token = '';
  let table: QueueBoxTable = 'outbox';
  let filter: PageFilter = {};
  let after: string | null = null;
  let next: string | null = null;
  const replayed: ReplayedRow[] = [];
  let timer: number | null = null;

  /** An element of the page's markup (admin-page.markup.ts) by its id. */
  function byId<E extends HTMLElement = HTMLElement>(id: string): E {
    const element = document.getElementById(id);
    if (!element) throw new Error(`The admin page has no element #${id}`);
    return element as E;
  }

  async function request<T>(path: string, options: { method?: 'GET' | 'POST'; body?: unknown } = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    // A replay or discard goes as JSON with the admin header, which no HTML form can send.
    if (options.body) {
      headers['content-type'] = 'application/json';
      headers['x-queuebox-admin'] = '1';
    }
    const response = await fetch(api + path, {
      method: options.method ?? 'GET',
      headers,
      body: options.body ? JSON.stringify(options.body) : undefined,
      credentials: 'same-origin',
      cache: 'no-store',
    });
    const body = (await response.json().catch(() => ({}))) as T & ErrorBody;
    if (!response.ok) {
      const error: HttpError = new Error(
        (body.field ? `${body.field}: ` : '') + (body.message || `HTTP ${response.status}`),
      );
      error.status = response.status;
      throw error;
    }
    return body;
  }

  /**
   * Text as the page shows it: control characters other than tab and line feed become escapes
   * (`\u202e`). Keys, sources and last errors come from senders and destinations: a bidirectional
   * override (U+202E) in one would reorder the rest of its cell, and other controls would be
   * invisible, so what an operator reads would not be what is stored.
   */
  function shown(text: string): string {
    return text.replace(
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
      (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }

  function status(text: string, bad?: boolean): void {
    byId('status').textContent = shown(text);
    byId('status').className = bad ? 'bad' : '';
  }
  function message(text: string, bad?: boolean): void {
    byId('message').textContent = shown(text);
    byId('message').className = bad ? 'bad' : '';
  }
  function cell(row: HTMLTableRowElement, text: unknown, className?: string): HTMLTableCellElement {
    const td = document.createElement('td');
    td.textContent = text === null || text === undefined ? '' : shown(String(text));
    if (className) td.className = className;
    row.appendChild(td);
    return td;
  }
  function fill<T>(
    id: string,
    items: readonly T[],
    render: (row: HTMLTableRowElement, item: T) => void,
    emptyText: string,
    columns: number,
  ): void {
    const body = byId<HTMLTableSectionElement>(id);
    body.textContent = '';
    if (items.length === 0) {
      cell(body.insertRow(), emptyText, 'empty').colSpan = columns;
      return;
    }
    for (const item of items) render(body.insertRow(), item);
  }
  function age(ms: number | null | undefined): string {
    if (ms === null || ms === undefined) return 'never';
    const s = Math.round(ms / 1000);
    if (s < 120) return `${s} s`;
    if (s < 7200) return `${Math.round(s / 60)} min`;
    return `${Math.round(s / 3600)} h`;
  }
  function time(iso: string | null): string {
    return iso ? new Date(iso).toLocaleString() : '';
  }

  async function loadReports(): Promise<void> {
    const [loops, backlog, blocked, atRisk] = await Promise.all([
      request<Json<{ workersEnabled: boolean; loops: LoopSnapshot[] }>>('loops'),
      request<Json<Backlog>>('backlog'),
      request<Json<{ items: BlockedKey[] }>>(`blocked-keys?limit=${settings.listLimit}`),
      request<Json<ClaimsAtRisk>>(`claims-at-risk?limit=${settings.listLimit}`),
    ]);
    fill(
      'loops',
      loops.loops,
      (row, loop) => {
        cell(row, loop.name);
        cell(row, loops.workersEnabled ? loop.state : 'workers disabled', `state-${loop.state}`);
        cell(row, age(loop.lastTickAgeMs), 'num');
        cell(row, loop.concurrency === null ? loop.inFlight : `${loop.inFlight} / ${loop.concurrency}`, 'num');
        cell(row, loop.consecutiveErrors, 'num');
        cell(row, loop.lastError, 'error');
      },
      'No loops',
      6,
    );
    const streams: [QueueBoxTable, Json<BacklogEntry>][] = [
      ...backlog.outbox.map((entry): [QueueBoxTable, Json<BacklogEntry>] => ['outbox', entry]),
      ...backlog.inbox.map((entry): [QueueBoxTable, Json<BacklogEntry>] => ['inbox', entry]),
    ];
    fill(
      'backlog',
      streams,
      (row, [stream, entry]) => {
        cell(row, stream);
        cell(row, entry.name);
        cell(row, entry.pending, 'num');
        cell(row, age(entry.oldestAgeSeconds * 1000), 'num');
      },
      'Nothing pending',
      4,
    );
    fill(
      'blocked',
      blocked.items,
      (row, key) => {
        cell(row, key.table);
        cell(row, key.stream);
        cell(row, key.key);
        cell(row, key.id);
        cell(row, key.reason, `state-${key.reason}`);
        cell(row, key.waiting, 'num');
        cell(row, key.lastError, 'error');
      },
      'No blocked keys',
      7,
    );
    fill(
      'expiring',
      atRisk.expiring,
      (row, claim) => {
        cell(row, claim.table);
        cell(row, claim.id);
        cell(row, claim.stream);
        cell(row, claim.key);
        cell(row, age(claim.expiresInMs), 'num');
      },
      'No lease about to end',
      5,
    );
    fill(
      'lost',
      atRisk.lost,
      (row, lost) => {
        cell(row, lost.loop);
        cell(row, `row ${lost.id}`);
        cell(row, lost.during);
        cell(row, time(lost.at));
      },
      'None',
      4,
    );
  }

  function deadQuery(): string {
    const parts = [`limit=${settings.listLimit}`];
    for (const [name, value] of Object.entries(filter))
      parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    if (after) parts.push(`after=${encodeURIComponent(after)}`);
    return parts.join('&');
  }

  async function loadDead(): Promise<void> {
    const page = await request<Json<DeadLetterPage<DeadOutboxMessage | DeadInboxMessage>>>(
      `dead/${table}?${deadQuery()}`,
    );
    next = page.next || null;
    byId<HTMLButtonElement>('next-page').disabled = !next;
    byId<HTMLInputElement>('select-all').checked = false;
    fill(
      'dead',
      page.items,
      (row, dead) => {
        const box = document.createElement('input');
        box.type = 'checkbox';
        box.value = dead.id;
        box.setAttribute('aria-label', `Select ${dead.id}`);
        row.insertCell().appendChild(box);
        cell(row, dead.id);
        cell(row, 'destination' in dead ? dead.destination : dead.source);
        cell(row, dead.key);
        cell(row, dead.attempts, 'num');
        cell(row, dead.lastError, 'error');
        cell(row, time(dead.finishedAt));
        const inspect = document.createElement('button');
        inspect.type = 'button';
        inspect.textContent = 'Inspect';
        inspect.addEventListener('click', () => showDetail(dead.id, false));
        row.insertCell().appendChild(inspect);
      },
      'No dead letters',
      8,
    );
  }

  function showDetail(id: string, payload: boolean): void {
    request<Json<DeadLetterDetail>>(`dead/${table}/${encodeURIComponent(id)}${payload ? '?payload=true' : ''}`).then(
      (detail) => {
        byId('detail').hidden = false;
        byId('detail-id').textContent = shown(id);
        byId('detail-text').textContent = shown(JSON.stringify(detail, null, 2));
        byId('show-payload').hidden = payload;
        byId('show-payload').onclick = () => showDetail(id, true);
      },
      failed,
    );
  }

  async function loadReplayed(): Promise<void> {
    const byTable: Record<QueueBoxTable, string[]> = { outbox: [], inbox: [] };
    for (const entry of replayed) if (!entry.final) byTable[entry.table].push(entry.id);
    const asked = (['outbox', 'inbox'] as const).filter((t) => byTable[t].length > 0);
    await Promise.all(
      asked.map(async (t) => {
        const answer = await request<Json<{ items: RowStateRow[] }>>(
          `rows/${t}?ids=${byTable[t].slice(0, 1000).join(',')}`,
        );
        for (const row of answer.items) {
          for (const entry of replayed) {
            if (entry.table === t && entry.id === row.id) {
              entry.state = row.state;
              entry.attempts = row.attempts;
              entry.final = row.state === 'sent' || row.state === 'processed' || row.state === 'dead';
            }
          }
        }
      }),
    );
    fill(
      'replayed',
      replayed.slice(-200).reverse(),
      (row, entry) => {
        cell(row, entry.table);
        cell(row, entry.id);
        cell(
          row,
          entry.state === 'sent' || entry.state === 'processed' ? `${entry.state} (delivered)` : entry.state,
          `state-${entry.state}`,
        );
        cell(row, entry.attempts, 'num');
      },
      'Nothing replayed yet',
      4,
    );
  }

  function refresh(): Promise<void> {
    return Promise.all([loadReports(), loadDead(), loadReplayed()]).then(() => {
      status(`Connected; updated ${new Date().toLocaleTimeString()}`);
    }, failed);
  }

  function failed(error: HttpError): void {
    if (error.status === 401) status('The bearer token is missing or wrong', true);
    else if (error.status === 403) status('Not allowed', true);
    else message(error.message, true);
  }

  function confirmThen(text: string, action: () => void): void {
    byId('confirm-text').textContent = shown(text);
    byId('confirm').hidden = false;
    byId('confirm-yes').focus();
    byId('confirm-yes').onclick = () => {
      byId('confirm').hidden = true;
      action();
    };
    byId('confirm-no').onclick = () => {
      byId('confirm').hidden = true;
    };
  }

  function selectedIds(): string[] {
    return Array.from(
      document.querySelectorAll<HTMLInputElement>('#dead input[type=checkbox]:checked'),
      (box) => box.value,
    );
  }

  /** "outbox dead letter", "inbox dead letters": how the messages name rows of the open tab. */
  function deadLetters(count: number): string {
    return `${table} dead letter${count === 1 ? '' : 's'}`;
  }

  function mutate(
    action: 'replay' | 'discard',
    selection: { ids: string[] } | { filter: PageFilter },
    describe: string,
  ): void {
    confirmThen(describe, () => {
      request<Json<DeadLetterBatchResult>>(`dead/${table}/${action}`, { method: 'POST', body: selection }).then(
        (result) => {
          message(`${action === 'replay' ? 'Replayed' : 'Discarded'} ${result.count} ${deadLetters(result.count)}.`);
          if (action === 'replay' && result.ids) {
            for (const id of result.ids) replayed.push({ table, id, state: 'pending', attempts: 0, final: false });
          }
          return refresh();
        },
        failed,
      );
    });
  }

  function filterText(): string {
    const names = Object.keys(filter) as (keyof PageFilter)[];
    return names.length === 0
      ? `every ${table} dead letter`
      : `${table} dead letters matching ${names.map((name) => `${name} = ${filter[name]}`).join(', ')}`;
  }

  byId('connect').addEventListener('click', () => {
    const input = byId<HTMLInputElement>('token');
    token = input.value.trim();
    input.value = '';
    status('Connecting...');
    void refresh();
    if (timer !== null) window.clearInterval(timer);
    timer = window.setInterval(refresh, settings.refreshIntervalMs);
  });
  byId('token').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') byId('connect').click();
  });
  byId('refresh').addEventListener('click', refresh);
  const tabs = document.querySelectorAll<HTMLButtonElement>('.tabs button');
  for (const button of tabs) {
    button.addEventListener('click', () => {
      const asked = button.getAttribute('data-table') ?? '';
      table = Object.hasOwn(settings.tables, asked) ? (asked as QueueBoxTable) : 'outbox';
      for (const other of tabs) other.setAttribute('aria-pressed', String(other === button));
      byId('stream-label').textContent = settings.tables[table].streamTitle;
      byId('stream-head').textContent = settings.tables[table].streamTitle;
      filter = {};
      after = null;
      byId<HTMLFormElement>('filter').reset();
      byId('detail').hidden = true;
      loadDead().catch(failed);
    });
  }
  byId('filter').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = new FormData(byId<HTMLFormElement>('filter'));
    filter = {};
    const stream = String(form.get('stream') ?? '').trim();
    if (stream) filter[settings.tables[table].stream] = stream;
    const errorContains = String(form.get('errorContains') ?? '').trim();
    if (errorContains) filter.errorContains = errorContains;
    for (const name of ['deadSince', 'deadBefore'] as const) {
      const value = String(form.get(name) ?? '');
      if (value) filter[name] = new Date(value).toISOString();
    }
    after = null;
    message('');
    loadDead().catch(failed);
  });
  byId('select-all').addEventListener('change', () => {
    const checked = byId<HTMLInputElement>('select-all').checked;
    for (const box of document.querySelectorAll<HTMLInputElement>('#dead input[type=checkbox]')) box.checked = checked;
  });
  byId('next-page').addEventListener('click', () => {
    if (next) {
      after = next;
      loadDead().catch(failed);
    }
  });
  byId('replay-selected').addEventListener('click', () => {
    const ids = selectedIds();
    if (ids.length === 0) return message('Select dead letters first.', true);
    mutate(
      'replay',
      { ids },
      `Replay ${ids.length} ${deadLetters(ids.length)} (${ids.join(', ')})? They are sent again, in order per key.`,
    );
  });
  byId('discard-selected').addEventListener('click', () => {
    const ids = selectedIds();
    if (ids.length === 0) return message('Select dead letters first.', true);
    mutate('discard', { ids }, `Delete ${ids.length} ${deadLetters(ids.length)} (${ids.join(', ')}) for good?`);
  });
  byId('replay-matching').addEventListener('click', () => mutate('replay', { filter }, `Replay ${filterText()}?`));
  byId('discard-matching').addEventListener('click', () =>
    mutate('discard', { filter }, `Delete ${filterText()} for good?`),
  );
}
