import { describe, expect, it } from 'vitest';
import { AdaptivePace } from '../../lib/engine/claim-pace.js';
import type { ClaimWorkerSettings } from '../../lib/engine/claim-worker.js';
import { claimWorkerSettings, type LoopMetrics } from '../../lib/engine/loop-settings.js';
import type { ClaimComponent } from '../../lib/shared/interfaces/claim.interface.js';
import { OUTBOX_PACE_BOUNDS, RELAY_PACE_BOUNDS } from '../../lib/config/options/pace-bounds.js';
import { resolveOptions } from '../../lib/config/options/resolve-options.js';
import type { ResolvedLoopOptions } from '../../lib/config/options/resolved-options.interface.js';
import { resolvePullWorkerOptions } from '../../lib/features/pull/resolve-pull-worker-options.js';
import { CLAIMERS } from '../../lib/shared/queuebox.claimers.js';

/** Records what each loop reports, by the names it reports under. */
function recordingMetrics(): LoopMetrics & { reported: string[] } {
  const reported: string[] = [];
  return {
    reported,
    loopPace: (component, concurrency, batchSize) =>
      void reported.push(`pace ${component} ${concurrency}/${batchSize}`),
    loopTicker: (loop) => () => void reported.push(`tick ${loop}`),
    loopError: (loop) => void reported.push(`error ${loop}`),
  };
}

/** The loop's options as a claim worker got them: the one shape every claimer resolves to. */
const LOOP_KEYS = [
  'leaseMs',
  'pollIntervalMs',
  'batchSize',
  'concurrency',
  'adaptive',
  'claimAhead',
  'maxAttempts',
  'backoff',
  'shutdownTimeoutMs',
] as const;
const loopOf = (settings: ClaimWorkerSettings): ResolvedLoopOptions =>
  Object.fromEntries(LOOP_KEYS.map((key) => [key, settings[key]])) as unknown as ResolvedLoopOptions;

const backoff = { initialDelayMs: 250, maxDelayMs: 8_000, multiplier: 3, jitter: 'full' } as const;

describe('claimWorkerSettings: one builder for the three loops', () => {
  it('gives the outbox poller, the relay and a pull worker identical loop settings from identical options', () => {
    // The same values under each claimer's own option names: claimTimeoutMs, and a pull worker's leaseMs (its batch is its concurrency).
    const loop = {
      pollIntervalMs: 500,
      concurrency: 8,
      batchSize: 8,
      maxAttempts: 3,
      backoff,
      shutdownTimeoutMs: 2_000,
    };
    const options = resolveOptions({
      destinations: { sink: { type: 'http', url: 'http://127.0.0.1:1/sink' } },
      outbox: { claimTimeoutMs: 60_000, ...loop },
      inbox: { relay: { routes: { orders: { destination: 'sink' } }, claimTimeoutMs: 60_000, ...loop } },
    });
    const { batchSize: _pullBatch, ...pullLoop } = loop;
    const pull = resolvePullWorkerOptions(
      'OrdersWorker',
      { source: 'orders', leaseMs: 60_000, claimAhead: 0, ...pullLoop },
      options,
    );
    const metrics = recordingMetrics();
    const settings = [
      claimWorkerSettings(CLAIMERS.outbox, options.outbox, { name: 'OutboxPoller', metrics }),
      claimWorkerSettings(CLAIMERS.relay, options.inbox.relay, { name: 'InboxRelay', metrics }),
      claimWorkerSettings(CLAIMERS.pull, pull, { name: 'PullWorker:OrdersWorker', stream: 'orders', metrics }),
    ];
    const expected: ResolvedLoopOptions = {
      leaseMs: 60_000,
      pollIntervalMs: 500,
      batchSize: 8,
      concurrency: 8,
      adaptive: false,
      claimAhead: 0,
      maxAttempts: 3,
      backoff,
      shutdownTimeoutMs: 2_000,
    };
    for (const each of settings) {
      expect(loopOf(each)).toEqual(expected);
      expect(each.pace).toBeUndefined();
    }
  });

  it('adds what differs by claimer from its descriptor: the reclaim step, the shutdown, the names it reports under', () => {
    const loop: ResolvedLoopOptions = {
      leaseMs: 10_000,
      pollIntervalMs: 100,
      batchSize: 2,
      concurrency: 4,
      adaptive: false,
      claimAhead: 0,
      maxAttempts: 5,
      backoff,
      shutdownTimeoutMs: 1_000,
    };
    const metrics = recordingMetrics();
    const built = (component: ClaimComponent) =>
      claimWorkerSettings(CLAIMERS[component], loop, { name: component, stream: 'orders', metrics });
    const [outbox, relay, pull] = [built('outbox'), built('relay'), built('pull')];
    // The outbox and the relay reclaim every fifth of the lease; a pull claim takes expired rows itself.
    expect([outbox.reclaimEveryMs, relay.reclaimEveryMs, pull.reclaimEveryMs]).toEqual([2_000, 2_000, undefined]);
    expect([outbox.claimer.shutdown, relay.claimer.shutdown, pull.claimer.shutdown]).toEqual([
      'finish',
      'finish',
      'release',
    ]);
    for (const each of [outbox, relay, pull]) {
      each.onPace?.(4, 2);
      each.onLoopTick?.();
      each.onLoopError?.();
    }
    // One public name per loop: the relay is `relay` in its pace gauge and its loop label alike; a pull worker's pace has no gauge.
    expect(metrics.reported).toEqual([
      'pace outbox 4/2',
      'tick outbox',
      'error outbox',
      'pace relay 4/2',
      'tick relay',
      'error relay',
      'tick pull:orders',
      'error pull:orders',
    ]);
  });

  it('paces the outbox and the relay adaptively within their own bounds when their options leave the pace to them', () => {
    const defaults = resolveOptions({});
    const metrics = recordingMetrics();
    const outbox = claimWorkerSettings(CLAIMERS.outbox, defaults.outbox, { name: 'OutboxPoller', metrics });
    const relay = claimWorkerSettings(CLAIMERS.relay, defaults.inbox.relay, { name: 'InboxRelay', metrics });
    expect(outbox.pace).toBeInstanceOf(AdaptivePace);
    expect(outbox.pace).toMatchObject({ concurrency: OUTBOX_PACE_BOUNDS.concurrency.start, adaptive: true });
    expect(relay.pace).toMatchObject({ concurrency: RELAY_PACE_BOUNDS.concurrency.start, adaptive: true });
  });

  it('lets only the outbox skip the WAL flush of its marks, when its options ask for it', () => {
    const loop = resolveOptions({}).outbox;
    const metrics = recordingMetrics();
    expect(claimWorkerSettings(CLAIMERS.outbox, loop, { name: 'o', asyncMarks: true, metrics }).asyncMarks).toBe(true);
    expect(claimWorkerSettings(CLAIMERS.outbox, loop, { name: 'o', asyncMarks: false, metrics }).asyncMarks).toBe(
      false,
    );
    expect(claimWorkerSettings(CLAIMERS.relay, loop, { name: 'r', asyncMarks: true, metrics }).asyncMarks).toBe(false);
  });
});
