import { Inject, Injectable, Optional } from '@nestjs/common';
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
import type { HealthFinding } from './health-finding.js';
import { QUEUEBOX_HEALTH_OPTIONS } from './queuebox-health.constants.js';
import type { QueueBoxHealthOptions, ResolvedHealthThresholds } from './queuebox-health-options.interface.js';
import { resolveHealthOptions } from './resolve-health-options.js';
import { stalledLoopFinding, thresholdFindings } from './threshold-findings.js';
import { QueueBoxMetrics } from '../metrics/queuebox-metrics.service.js';

/** Consecutive failed ticks after which a loop is reported down. */
const MAX_CONSECUTIVE_ERRORS = 3;

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
 * ticked for three poll intervals (at least a minute). With `QueueBoxHealthModule.forRoot()`
 * thresholds it also reports `degraded` findings (the indicator stays up) or goes down on the
 * oldest pending age, dead letters in a window, and stalled loops; lease advice is always listed
 * under `degraded`.
 *
 * ```ts
 * @Get('health') check() { return this.health.check([() => this.queueBox.isHealthy()]); }
 * ```
 * @publicApi
 */
@Injectable()
export class QueueBoxHealthIndicator {
  private readonly thresholds: ResolvedHealthThresholds;

  constructor(
    private readonly health: HealthIndicatorService,
    private readonly moduleRef: ModuleRef,
    @Optional() @Inject(QUEUEBOX_HEALTH_OPTIONS) options?: QueueBoxHealthOptions,
  ) {
    this.thresholds = resolveHealthOptions(options);
  }

  isHealthy(key = 'queuebox'): HealthIndicatorResult {
    const indicator = this.health.check(key);
    const options = this.moduleRef.get<ResolvedQueueBoxOptions>(QUEUEBOX_RESOLVED_OPTIONS, { strict: false });
    if (!options.workersEnabled) return indicator.up({ workers: 'disabled' });
    const findings: HealthFinding[] = [];
    const report = (loop: string, status: ClaimWorkerStatus, pollIntervalMs: number): LoopReport => {
      const loopReport = reportLoop(loop, status, pollIntervalMs, this.thresholds);
      if (loopReport.stalled) findings.push(loopReport.stalled);
      return loopReport.report;
    };
    const loops: Record<string, LoopReport> = {
      outbox: report('outbox', this.moduleRef.get(OutboxPoller, { strict: false }).status, options.outbox.pollIntervalMs),
    };
    if (options.inbox.relay.routes.size > 0) {
      loops.relay = report('relay', this.moduleRef.get(InboxRelay, { strict: false }).status, options.inbox.relay.pollIntervalMs);
    }
    for (const worker of this.moduleRef.get(PullWorkerExplorer, { strict: false }).workers) {
      loops[`pull:${worker.source}`] = report(`pull:${worker.source}`, worker.status, worker.pollIntervalMs);
    }
    findings.push(...thresholdFindings(this.moduleRef.get(QueueBoxMetrics, { strict: false }).signals, this.thresholds));
    findings.push(...leaseAdviceFindings(this.moduleRef.get(LeaseAdvisor, { strict: false })));
    return withFindings(indicator, loops, Object.values(loops).every((loop) => loop.healthy), findings);
  }
}

function reportLoop(loop: string, status: ClaimWorkerStatus, pollIntervalMs: number, thresholds: ResolvedHealthThresholds): { report: LoopReport; stalled?: HealthFinding } {
  // lastTickAt is this process's time, as the age of its own loop's last tick.
  const ageMs = status.lastTickAt ? Date.now() - status.lastTickAt.getTime() : Infinity;
  // A loop waiting for a free slot does not tick; with work in flight it is busy, not stuck.
  const stalled = stalledLoopFinding(loop, ageMs, status.inFlight, pollIntervalMs, thresholds);
  const report = {
    state: status.state,
    lastTickAgeMs: Number.isFinite(ageMs) ? ageMs : null,
    consecutiveErrors: status.consecutiveErrors,
    inFlight: status.inFlight,
    healthy: status.state === 'running' && status.consecutiveErrors < MAX_CONSECUTIVE_ERRORS && stalled?.level !== 'down',
  };
  // A stalled loop is already reported down by its own `healthy`; only a degraded one is listed.
  return { report, stalled: stalled?.level === 'degraded' ? stalled : undefined };
}
