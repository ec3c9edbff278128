import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { ResolvedQueueBoxOptions } from '../options/resolved-options.interface.js';
import { OutboxPoller } from '../outbox/outbox-poller.js';
import { QUEUEBOX_RESOLVED_OPTIONS } from '../queuebox.constants.js';

/** Consecutive failed ticks after which a loop is reported down. */
const MAX_CONSECUTIVE_ERRORS = 3;

/**
 * A `@nestjs/terminus` health indicator: down when the outbox loop is not running, keeps
 * failing, or has not ticked for three poll intervals (at least a minute).
 *
 * ```ts
 * @Get('health') check() { return this.health.check([() => this.queueBox.isHealthy()]); }
 * ```
 * @publicApi
 */
@Injectable()
export class QueueBoxHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly moduleRef: ModuleRef,
  ) {}

  isHealthy(key = 'queuebox'): HealthIndicatorResult {
    const indicator = this.health.check(key);
    const options = this.moduleRef.get<ResolvedQueueBoxOptions>(QUEUEBOX_RESOLVED_OPTIONS, { strict: false });
    if (!options.workersEnabled) return indicator.up({ outbox: 'workers disabled' });
    const status = this.moduleRef.get(OutboxPoller, { strict: false }).status;
    const ageMs = status.lastTickAt ? Date.now() - status.lastTickAt.getTime() : Infinity;
    const staleAfterMs = Math.max(60_000, 3 * options.outbox.pollIntervalMs);
    const details = {
      state: status.state,
      lastTickAgeMs: Number.isFinite(ageMs) ? ageMs : null,
      consecutiveErrors: status.consecutiveErrors,
      inFlight: status.inFlight,
    };
    const healthy = status.state === 'running' && status.consecutiveErrors < MAX_CONSECUTIVE_ERRORS && ageMs <= staleAfterMs;
    return healthy ? indicator.up(details) : indicator.down(details);
  }
}
