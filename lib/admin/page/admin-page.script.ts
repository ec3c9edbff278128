import type { AdminPageClientSettings } from './admin-page-client-settings.js';
import { adminPageClient } from './admin-page.client.js';

/** The settings the page's script runs with. */
const SETTINGS: AdminPageClientSettings = { refreshIntervalMs: 5000, listLimit: 50 };

/**
 * The admin page's script as the page carries it inline: the compiled source of `adminPageClient`
 * (admin-page.client.ts), called with its settings. The page's CSP hash is taken of this text.
 * `<` in the settings is escaped, so no value can close the script element.
 */
export const ADMIN_PAGE_SCRIPT = `(${adminPageClient.toString()})(${JSON.stringify(SETTINGS).replaceAll('<', '\\u003c')});`;
