import { Logger } from '@nestjs/common';
import { deprecatedMethod } from '../../shared/queuebox.messages.js';

/**
 * The deprecated methods that warned already. NOTE: per process on purpose, not per application
 * instance: a deprecation is a fact about the calling code, so one line per method is enough
 * however many QueueBox modules (test apps, replicas in one process) call it, and a method called
 * in a loop does not flood the log.
 */
const warned = new Set<string>();

/** Logs that `method` is deprecated in favour of `replacement`, the first time it is called in this process. */
export function warnDeprecatedOnce(method: string, replacement: string): void {
  if (warned.has(method)) return;
  warned.add(method);
  new Logger('QueueBox').warn(deprecatedMethod(method, replacement));
}
