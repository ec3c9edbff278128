/** Injection token of the options given to `QueueBoxHealthModule.forRoot()`. */
export const QUEUEBOX_HEALTH_OPTIONS = Symbol('QUEUEBOX_HEALTH_OPTIONS');
