import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import type { ClaimedOutboxRow } from '../../lib/database/statement-results.js';
import type { RowJob } from '../../lib/engine/claim-role.interface.js';
import { SourceLabels } from '../../lib/engine/metrics/source-labels.js';
import type { QueueBoxMetrics } from '../../lib/engine/metrics/queuebox-metrics.service.js';
import { UnknownStreams } from '../../lib/engine/metrics/unknown-streams.js';
import { resolveOptions } from '../../lib/config/options/resolve-options.js';
import { DestinationLabels } from '../../lib/engine/metrics/destination-labels.js';
import { OutboxPoller } from '../../lib/features/outbox/outbox-poller.js';

const options = resolveOptions({
  destinations: { billing: { type: 'http', url: 'http://127.0.0.1:9/billing' } },
  inbox: { sources: { declared: {}, routed: {} }, relay: { routes: { routed: { destination: 'billing' } } } },
});

const backlog = (label: string, pending: number) => ({ label, pending, oldestAgeSeconds: 1 });

describe('bounded destination labels', () => {
  it('keep a configured destination’s name; any other destination is _other, as an undeclared source is', () => {
    const labels = new DestinationLabels(options);
    expect(labels.of('billing')).toBe('billing');
    expect(['gone-1', 'Billing', '', undefined, 42].map((destination) => labels.of(destination))).toEqual(
      Array(5).fill('_other'),
    );
    expect(new SourceLabels(options).of('gone-1')).toBe(labels.of('gone-1'));
  });

  describe('the outbox poller', () => {
    const publisherless = { names: () => ['billing'], get: () => undefined };
    const metrics = { loopTicker: () => () => undefined } as unknown as QueueBoxMetrics;
    const poller = new OutboxPoller(
      ...([
        {},
        publisherless,
        metrics,
        undefined,
        options,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        new DestinationLabels(options),
        undefined,
      ] as unknown as ConstructorParameters<typeof OutboxPoller>),
    );
    const row: ClaimedOutboxRow = {
      id: '7',
      messageId: 'm',
      destination: 'gone-1',
      key: null,
      headers: {},
      payload: '{}',
      token: 't',
      attempts: 1,
      inverted: false,
    };

    it('labels a row’s metrics with the bounded destination, and keeps its name in the log fields', () => {
      expect(poller.identify(row)).toEqual({
        id: '7',
        stream: '_other',
        fields: { messageId: 'm', rowId: '7', destination: 'gone-1' },
      });
    });

    it('gives back a claimed row whose destination it does not have: retried, never dead', async () => {
      const error = await poller.work(row, {} as RowJob).catch((thrown: unknown) => thrown);
      expect(String(error)).toContain('destination "gone-1" is not configured on this instance');
      expect(poller.failureOf(error)).toEqual({ error, retryable: true, giveBack: true });
    });
  });
});

describe('UnknownStreams', () => {
  let warn: MockInstance<Logger['warn']>;
  let gauges: [string, number][];
  let streams: UnknownStreams;

  beforeEach(() => {
    warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    gauges = [];
    const metrics = {
      unknownStreamBacklog: (table: string, pending: number) => void gauges.push([table, pending]),
    } as unknown as QueueBoxMetrics;
    const sources = new SourceLabels(options);
    sources.register('pulled');
    streams = new UnknownStreams(metrics, new DestinationLabels(options), sources);
  });
  afterEach(() => warn.mockRestore());

  it('counts the pending rows of destinations the instance does not have, and warns once per destination, not per sample', () => {
    streams.sampled('outbox', [backlog('billing', 5), backlog('y', 3), backlog('z', 2)]);
    streams.sampled('outbox', [backlog('billing', 5), backlog('y', 4)]);
    streams.sampled('outbox', [backlog('billing', 1)]);
    expect(gauges).toEqual([
      ['outbox', 5],
      ['outbox', 4],
      ['outbox', 0],
    ]);
    expect(warn.mock.calls.map(([message]) => String(message).match(/destination "(\w+)"/)?.[1])).toEqual(['y', 'z']);
    expect(warn.mock.calls[0][1]).toEqual({ table: 'outbox', destination: 'y', pending: 3 });
  });

  it('names twenty destinations, then says once that there are more: the log and the memory stay bounded', () => {
    for (let sample = 0; sample < 3; sample++)
      streams.sampled(
        'outbox',
        Array.from({ length: 300 }, (_, i) => backlog(`gone-${i}`, 1)),
      );
    expect(gauges.at(-1)).toEqual(['outbox', 300]);
    expect(warn).toHaveBeenCalledTimes(21);
    expect(String(warn.mock.calls[20][0])).toMatch(/^More destinations than the 20 named above/);
  });

  it('counts inbox rows of sources the instance neither declares, routes nor pulls', () => {
    streams.sampled('inbox', [
      backlog('declared', 1),
      backlog('routed', 2),
      backlog('pulled', 3),
      backlog('new-source', 4),
    ]);
    expect(gauges).toEqual([['inbox', 4]]);
    expect(warn.mock.calls.map(([message]) => String(message))).toEqual([
      expect.stringContaining('source "new-source"'),
    ]);
  });
});
