import { Inject, Injectable } from '@nestjs/common';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { OTHER_LABEL } from './other-label.js';
import { QUEUEBOX_RESOLVED_OPTIONS } from '../../shared/queuebox.constants.js';

/** Label value of every source QueueBox was not told about. */
export const OTHER_SOURCE = OTHER_LABEL;

/**
 * Bounded `source` label values: sources declared in `inbox.sources`, routed by the relay, or
 * consumed by a registered pull worker keep their name; anything else (an open intake, a typo
 * in a direct pull call) is `_other`, so senders cannot create label values.
 */
@Injectable()
export class SourceLabels {
  private readonly workerSources = new Set<string>();

  constructor(@Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions) {}

  /** Pull workers discovered at start-up add their sources. */
  register(source: string): void {
    this.workerSources.add(source);
  }

  of(source: unknown): string {
    if (typeof source !== 'string') return OTHER_SOURCE;
    const { sources, relay } = this.options.inbox;
    return sources?.has(source) || relay.routes.has(source) || this.workerSources.has(source) ? source : OTHER_SOURCE;
  }
}
