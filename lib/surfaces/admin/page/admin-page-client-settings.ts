import type { QueueBoxTable } from '../../../shared/interfaces/claim.interface.js';

/**
 * What the server hands the admin page's script: serialised as JSON into the page, next to the
 * script's source (admin-page.script.ts), so only plain data goes here.
 */
export interface AdminPageClientSettings {
  /** How often the page refreshes every list after Connect, in milliseconds. */
  readonly refreshIntervalMs: number;
  /** How many rows the page asks for per list: dead letters, blocked keys, claims at risk. */
  readonly listLimit: number;
  /** What each table's rows go to or come from: the filter field and the column title of its dead letters. */
  readonly tables: {
    readonly [T in QueueBoxTable]: { readonly stream: 'destination' | 'source'; readonly streamTitle: string };
  };
}
