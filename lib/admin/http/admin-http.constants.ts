/** The validated options of the admin module. */
export const QUEUEBOX_ADMIN_SETTINGS = Symbol('QUEUEBOX_ADMIN_SETTINGS');
/** The raw options of the admin module (ConfigurableModuleBuilder's token). */
export const QUEUEBOX_ADMIN_MODULE_OPTIONS = Symbol('QUEUEBOX_ADMIN_MODULE_OPTIONS');
/** The application's guard, when the `guard` extra names one. */
export const QUEUEBOX_ADMIN_APP_GUARD = Symbol('QUEUEBOX_ADMIN_APP_GUARD');

/** The default route prefix. */
export const DEFAULT_ADMIN_PATH = 'queuebox/admin';
/** A bearer token shorter than this is refused at start-up: it could be guessed. */
export const MIN_BEARER_TOKEN_LENGTH = 32;
