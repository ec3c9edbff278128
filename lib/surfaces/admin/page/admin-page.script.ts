import type { AdminPageClientSettings } from './admin-page-client-settings.js';
import { adminPageClient } from './admin-page.client.js';
import { QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';

/** A table's stream, as the page names it: the filter field, and the title of its column. */
const pageStream = ({ stream }: { stream: 'destination' | 'source' }) => ({
  stream,
  streamTitle: `${stream[0].toUpperCase()}${stream.slice(1)}`,
});

/** The settings the page's script runs with. */
const SETTINGS: AdminPageClientSettings = {
  refreshIntervalMs: 5000,
  listLimit: 50,
  tables: { outbox: pageStream(QUEUEBOX_TABLES.outbox), inbox: pageStream(QUEUEBOX_TABLES.inbox) },
};

/**
 * The admin page's script as the page carries it inline: the compiled source of `adminPageClient`
 * (admin-page.client.ts), called with its settings. The page's CSP hash is taken of this text.
 * `<` in the settings is escaped, so no value can close the script element.
 */
export const ADMIN_PAGE_SCRIPT = `(${adminPageClient.toString()})(${JSON.stringify(SETTINGS).replaceAll('<', '\\u003c')});`;
