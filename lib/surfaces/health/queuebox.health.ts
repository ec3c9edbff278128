import { Inject, Injectable, Optional } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { QueueBoxAdmin } from '../admin/queuebox-admin.service.js';
import { SchemaCheck } from '../../engine/startup/schema-check.js';
import type { LoopSnapshot } from '../../shared/interfaces/admin.interface.js';
import { LeaseAdvisor } from '../../engine/leases/lease-advisor.js';
import { QueueBoxMetrics } from '../../engine/metrics/queuebox-metrics.service.js';
import type { HealthFinding } from './health-finding.js';
import { leaseAdviceFindings } from './lease-advice-findings.js';
import { QUEUEBOX_HEALTH_OPTIONS } from './queuebox-health.constants.js';
import type { QueueBoxHealthOptions, ResolvedHealthThresholds } from './queuebox-health-options.interface.js';
import { resolveHealthOptions } from './resolve-health-options.js';
import { stalledLoopFinding, thresholdFindings } from './threshold-findings.js';
import { withFindings } from './with-findings.js';

/** Consecutive failed ticks after which a loop is reported down. */
const MAX_CONSECUTIVE_ERRORS = 3;

interface LoopReport {
  state: LoopSnapshot['state'];
  lastTickAgeMs: number | null;
  consecutiveErrors: number;
  inFlight: number;
  healthy: boolean;
}

/**
 * A `@nestjs/terminus` health indicator over every QueueBox loop (outbox poller, inbox relay,
 * pull workers): down while QueueBox's tables are not ready (`startup.waitForMigrations`), and when
 * a loop that should run is not running, keeps failing, or has not ticked for three poll
 * intervals (at least a minute). With `QueueBoxHealthModule.forRoot()`
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
    // Tables not ready (a replica waiting for its migrations): nothing works, on an API-only replica either.
    const tables = this.moduleRef.get(SchemaCheck, { strict: false }).problems;
    if (tables.length > 0) return indicator.down({ tables: 'not ready', problems: [...tables] });
    const admin = this.moduleRef.get(QueueBoxAdmin, { strict: false });
    if (!admin.workersEnabled) return indicator.up({ workers: 'disabled' });
    const findings: HealthFinding[] = [];
    // The claim loops; the retention sweeper's slow pass is not what "healthy" is about.
    const loops: Record<string, LoopReport> = {};
    for (const loop of admin.loops().filter((snapshot) => snapshot.component !== 'retention')) {
      const { report, stalled } = reportLoop(loop, this.thresholds);
      loops[loop.name] = report;
      if (stalled) findings.push(stalled);
    }
    findings.push(
      ...thresholdFindings(this.moduleRef.get(QueueBoxMetrics, { strict: false }).signals, this.thresholds),
    );
    findings.push(...leaseAdviceFindings(this.moduleRef.get(LeaseAdvisor, { strict: false })));
    return withFindings(
      indicator,
      loops,
      Object.values(loops).every((loop) => loop.healthy),
      findings,
    );
  }
}

function reportLoop(
  loop: LoopSnapshot,
  thresholds: ResolvedHealthThresholds,
): { report: LoopReport; stalled?: HealthFinding } {
  const ageMs = loop.lastTickAgeMs ?? Infinity;
  // A loop waiting for a free slot does not tick; with work in flight it is busy, not stuck.
  const stalled = stalledLoopFinding(loop.name, ageMs, loop.inFlight, loop.pollIntervalMs, thresholds);
  const report = {
    state: loop.state,
    lastTickAgeMs: loop.lastTickAgeMs,
    consecutiveErrors: loop.consecutiveErrors,
    inFlight: loop.inFlight,
    healthy: loop.state === 'running' && loop.consecutiveErrors < MAX_CONSECUTIVE_ERRORS && stalled?.level !== 'down',
  };
  // A stalled loop is already reported down by its own `healthy`; only a degraded one is listed.
  return { report, stalled: stalled?.level === 'degraded' ? stalled : undefined };
}
