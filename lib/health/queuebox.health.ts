import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { InboxRelay } from '../inbox/inbox-relay.js';
import type { ResolvedQueueBoxOptions } from '../options/resolved-options.interface.js';
import { OutboxPoller } from '../outbox/outbox-poller.js';
import { PullWorkerExplorer } from '../pull/pull-worker.explorer.js';
import { QUEUEBOX_RESOLVED_OPTIONS } from '../queuebox.constants.js';
import type { ClaimWorkerStatus } from '../runtime/claim-worker.js';
import { LeaseAdvisor } from '../leases/lease-advisor.js';
import { leaseAdviceFindings } from './lease-advice-findings.js';
import { withFindings } from './with-findings.js';

/** Consecutive failed ticks after which a loop is reported down. */
const MAX_CONSECUTIVE_ERRORS = 3;
/** A loop that has not ticked for this long (or three poll intervals, if longer) is stuck. */
const MIN_STALE_AFTER_MS = 60_000;

interface LoopReport {
  state: ClaimWorkerStatus['state'];
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
    const options = this.moduleRef.get<ResolvedQueueBoxOptions>(QUEUEBOX_RESOLVED_OPTIONS, { strict: false });
    if (!options.workersEnabled) return indicator.up({ workers: 'disabled' });
    const loops: Record<string, LoopReport> = {
      outbox: report(this.moduleRef.get(OutboxPoller, { strict: false }).status, options.outbox.pollIntervalMs),
    };
    if (options.inbox.relay.routes.size > 0) {
      loops.relay = report(this.moduleRef.get(InboxRelay, { strict: false }).status, options.inbox.relay.pollIntervalMs);
    }
    for (const worker of this.moduleRef.get(PullWorkerExplorer, { strict: false }).workers) {
      loops[`pull:${worker.source}`] = report(worker.status, worker.pollIntervalMs);
    }
    const findings = leaseAdviceFindings(this.moduleRef.get(LeaseAdvisor, { strict: false }));
    return withFindings(indicator, loops, Object.values(loops).every((loop) => loop.healthy), findings);
  }
}

function report(status: ClaimWorkerStatus, pollIntervalMs: number): LoopReport {
  const ageMs = status.lastTickAt ? Date.now() - status.lastTickAt.getTime() : Infinity;
  // A loop waiting for a free slot does not tick; with work in flight it is busy, not stuck.
  const fresh = ageMs <= Math.max(MIN_STALE_AFTER_MS, 3 * pollIntervalMs) || status.inFlight > 0;
  return {
    state: status.state,
    lastTickAgeMs: Number.isFinite(ageMs) ? ageMs : null,
    consecutiveErrors: status.consecutiveErrors,
    inFlight: status.inFlight,
    healthy: status.state === 'running' && status.consecutiveErrors < MAX_CONSECUTIVE_ERRORS && fresh,
  };
}
