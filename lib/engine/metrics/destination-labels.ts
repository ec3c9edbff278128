import { Inject, Injectable } from '@nestjs/common';
import { OTHER_LABEL } from './other-label.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { QUEUEBOX_RESOLVED_OPTIONS } from '../../shared/queuebox.constants.js';

/** Label value of every destination this instance does not have configured. */
export const OTHER_DESTINATION = OTHER_LABEL;

/**
 * Bounded `destination` label values, as `SourceLabels` bounds sources: a destination configured
 * in `destinations` keeps its name; any other (a row of a destination another version of the
 * application added, or one since removed) is `_other`, so rows cannot create label values.
 */
@Injectable()
export class DestinationLabels {
  constructor(@Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions) {}

  of(destination: unknown): string {
    return typeof destination === 'string' && this.options.destinations.has(destination)
      ? destination
      : OTHER_DESTINATION;
  }
}
