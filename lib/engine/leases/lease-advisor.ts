import { Injectable, Logger } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import { performance } from 'node:perf_hooks';
import type { Counter, Gauge, Histogram } from 'prom-client';
import { QueueBoxEvents } from '../../shared/events/queuebox-events.service.js';
import type { ClaimComponent } from '../../shared/interfaces/claim.interface.js';
import { CLAIMERS } from '../../shared/queuebox.claimers.js';
import { LEASE_ADVISED_SECONDS, LEASE_RENEWALS_TOTAL, LEASE_UTILIZATION_RATIO } from '../metrics/queuebox.metrics.js';
import { leaseAdvice } from '../../shared/queuebox.messages.js';
import type { LeaseAdvice } from '../../shared/interfaces/lease-advice.interface.js';
import {
  adviseLease,
  EVALUATE_EVERY_ROWS,
  LEASE_ADVICE_LOG_INTERVAL_MS,
  LEASE_UTILIZATION_THRESHOLD,
  LEASE_WINDOW_SIZE,
  leaseRuleHolds,
} from './lease-advice-rule.js';
import { LeaseWindow } from './lease-window.js';

type Labels = 'component' | 'destination' | 'source';

/** What the advisor keeps of one component and stream. */
interface StreamState {
  window: LeaseWindow;
  utilization: Histogram.Internal<Labels>;
  renewals: Counter.Internal;
  advice?: LeaseAdvice;
  loggedAt: number;
  /** Rows finished since the rule last ran. */
  unevaluated: number;
}

/**
 * Watches how much of its lease each claimed row's work uses, per component and stream
 * (destination or source), and advises a longer lease when the work regularly eats most of it
 * or claims are lost (the rule: `lease-advice-rule.ts`, docs/guides/observability.md). The
 * advice is logged once (again at most every 15 minutes while it holds), set on
 * `queuebox_lease_advised_seconds`, emitted as `lease.advice`, and reported by health.
 * Inject it to read the advice in force.
 * @publicApi
 */
@Injectable()
export class LeaseAdvisor {
  private readonly logger = new Logger(LeaseAdvisor.name);
  /** Every stream's state, in the order first seen. */
  private readonly streams: StreamState[] = [];
  /** The same states by component, then stream: a row's lookup builds no key string. */
  private readonly byComponent = new Map<ClaimComponent, Map<string, StreamState>>();

  constructor(
    @InjectMetric(LEASE_UTILIZATION_RATIO) private readonly utilization: Histogram<Labels>,
    @InjectMetric(LEASE_RENEWALS_TOTAL) private readonly renewals: Counter<Labels>,
    @InjectMetric(LEASE_ADVISED_SECONDS) private readonly advised: Gauge<Labels>,
    private readonly events: QueueBoxEvents,
  ) {}

  /**
   * A row's work ended after `durationMs` of its `leaseMs` lease; `lost`: its claim was lost.
   * Called by QueueBox's claim workers.
   * @internal
   */
  finished(component: ClaimComponent, stream: string, leaseMs: number, durationMs: number, lost: boolean): void {
    const state = this.state(component, stream);
    const ratio = durationMs / leaseMs;
    state.utilization.observe(ratio);
    state.window.add(ratio, lost);
    // The rule itself costs a few comparisons per row; the advice's percentiles need a sort,
    // done when the rule starts to hold, after a lost claim, and every tenth row while it holds.
    if (!leaseRuleHolds(state.window)) {
      if (state.advice) this.clear(component, stream, state);
      return;
    }
    state.unevaluated += 1;
    if (!state.advice || lost || state.unevaluated >= EVALUATE_EVERY_ROWS) {
      state.unevaluated = 0;
      this.evaluate(component, stream, leaseMs, state);
    }
  }

  /** A renewal kept the lease of a row of this stream. Called by QueueBox's claim workers. @internal */
  renewed(component: ClaimComponent, stream: string): void {
    this.state(component, stream).renewals.inc();
  }

  /** The advice in force, one per component and stream that has some. */
  get advice(): LeaseAdvice[] {
    return this.streams.flatMap((state) => (state.advice ? [state.advice] : []));
  }

  private evaluate(component: ClaimComponent, stream: string, leaseMs: number, state: StreamState): void {
    const advice = adviseLease(component, stream, leaseMs, state.window);
    if (!advice) {
      this.clear(component, stream, state);
      return;
    }
    state.advice = advice;
    this.advised.set(labelsOf(component, stream), advice.recommendedLeaseMs / 1000);
    // One warning, not one per row: again only after the interval, if the advice still holds.
    const now = performance.now();
    if (now - state.loggedAt < LEASE_ADVICE_LOG_INTERVAL_MS) return;
    state.loggedAt = now;
    this.logger.warn(leaseAdvice(advice), { ...advice });
    this.events.emit('lease.advice', advice);
  }

  private clear(component: ClaimComponent, stream: string, state: StreamState): void {
    state.advice = undefined;
    this.advised.set(labelsOf(component, stream), 0);
  }

  private state(component: ClaimComponent, stream: string): StreamState {
    let streams = this.byComponent.get(component);
    if (!streams) this.byComponent.set(component, (streams = new Map()));
    let state = streams.get(stream);
    if (!state) {
      const labels = labelsOf(component, stream);
      state = {
        window: new LeaseWindow(LEASE_WINDOW_SIZE, LEASE_UTILIZATION_THRESHOLD),
        utilization: this.utilization.labels(labels),
        renewals: this.renewals.labels(labels),
        loggedAt: -Infinity,
        unevaluated: 0,
      };
      streams.set(stream, state);
      this.streams.push(state);
      this.advised.set(labels, 0);
    }
    return state;
  }
}

/** A component's stream is the label of its table's stream (the other is empty): destinations of the outbox, sources of the inbox. */
function labelsOf(component: ClaimComponent, stream: string): Record<Labels, string> {
  return { component, destination: '', source: '', [CLAIMERS[component].table.stream]: stream };
}
