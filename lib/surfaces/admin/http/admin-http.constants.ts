/** The validated options of the admin module. */
export const QUEUEBOX_ADMIN_SETTINGS = Symbol('QUEUEBOX_ADMIN_SETTINGS');
/** The raw options of the admin module (ConfigurableModuleBuilder's token). */
export const QUEUEBOX_ADMIN_MODULE_OPTIONS = Symbol('QUEUEBOX_ADMIN_MODULE_OPTIONS');
/** The module's route prefix (the `path` extra). */
export const QUEUEBOX_ADMIN_PATH = Symbol('QUEUEBOX_ADMIN_PATH');
/** The application's guard, when the `guard` extra names one. */
export const QUEUEBOX_ADMIN_APP_GUARD = Symbol('QUEUEBOX_ADMIN_APP_GUARD');

/** The default route prefix. */
export const DEFAULT_ADMIN_PATH = 'queuebox/admin';
/** A bearer token shorter than this is refused at start-up: it could be guessed. */
export const MIN_BEARER_TOKEN_LENGTH = 32;
/**
 * The header every replay and discard must carry, with the value `1`. An HTML form cannot send a
 * header of its own, and a script of another origin cannot either without the server agreeing
 * to it (CORS): a request that has it was made by a script of the page's own origin, or by a
 * client outside the browser.
 */
export const ADMIN_REQUEST_HEADER = 'X-QueueBox-Admin';
/** The value of `ADMIN_REQUEST_HEADER`. */
export const ADMIN_REQUEST_HEADER_VALUE = '1';
