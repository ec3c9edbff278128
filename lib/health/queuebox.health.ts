import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { QueueBoxAdmin } from '../admin/queuebox-admin.service.js';
import type { LoopSnapshot } from '../interfaces/admin.interface.js';

/** Consecutive failed ticks after which a loop is reported down. */
const MAX_CONSECUTIVE_ERRORS = 3;
/** A loop that has not ticked for this long (or three poll intervals, if longer) is stuck. */
const MIN_STALE_AFTER_MS = 60_000;

interface LoopReport {
  state: LoopSnapshot['state'];
  lastTickAgeMs: number | null;
  consecutiveErrors: number;
  inFlight: number;
  healthy: boolean;
}

/**
 * A `@nestjs/terminus` health indicator over every QueueBox loop (outbox poller, inbox relay,
 * pull workers): down when a loop that should run is not running, keeps failing, or has not
 * ticked for three poll intervals (at least a minute).
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
    const admin = this.moduleRef.get(QueueBoxAdmin, { strict: false });
    if (!admin.workersEnabled) return indicator.up({ workers: 'disabled' });
    // The claim loops; the retention sweeper's slow pass is not what "healthy" is about.
    const loops = Object.fromEntries(admin.loops().filter((loop) => loop.component !== 'retention').map((loop) => [loop.name, report(loop)]));
    const healthy = Object.values(loops).every((loop) => loop.healthy);
    return healthy ? indicator.up(loops) : indicator.down(loops);
  }
}

function report(loop: LoopSnapshot): LoopReport {
  const ageMs = loop.lastTickAgeMs ?? Infinity;
  // A loop waiting for a free slot does not tick; with work in flight it is busy, not stuck.
  const fresh = ageMs <= Math.max(MIN_STALE_AFTER_MS, 3 * loop.pollIntervalMs) || loop.inFlight > 0;
  return {
    state: loop.state,
    lastTickAgeMs: loop.lastTickAgeMs,
    consecutiveErrors: loop.consecutiveErrors,
    inFlight: loop.inFlight,
    healthy: loop.state === 'running' && loop.consecutiveErrors < MAX_CONSECUTIVE_ERRORS && fresh,
  };
}
