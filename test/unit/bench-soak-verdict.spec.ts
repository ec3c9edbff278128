import { describe, expect, it } from 'vitest';
import { comparisonWindow, readSoakConfig, steadyFromMinute } from '../../bench/soak-config.js';
import { seriesCsv, type SoakMinute } from '../../bench/soak-series.js';
import { soakChecks, soakVerdictLine, WindowSamples, type VerdictInput } from '../../bench/soak-verdict.js';

/** A minute of a soak that keeps up: `overrides` change what the case is about. */
function minute(n: number, overrides: Partial<SoakMinute> = {}): SoakMinute {
  return {
    minute: n,
    endedAt: '2026-12-06T00:00:00.000Z',
    offeredPerSecond: 1_000,
    enqueuedPerSecond: 1_000,
    publishedPerSecond: 1_000,
    producerBehind: 0,
    failedTransactions: 0,
    backlog: 100,
    endToEndP50Ms: 10,
    endToEndP99Ms: 50,
    endToEndMaxMs: 80,
    claimP50Ms: 2,
    claimP99Ms: 20,
    claims: 10_000,
    claimErrors: 0,
    rowsPerClaim: 6,
    commitP50Ms: 5,
    commitP99Ms: 30,
    totalBytes: 100 * 1024 * 1024,
    tableBytes: 80 * 1024 * 1024,
    indexBytes: 20 * 1024 * 1024,
    indexes: {},
    liveTuples: 200_000,
    deadTuples: 100_000,
    deadTuplesMax: 150_000,
    deletedRows: 60_000,
    insertedRows: 60_000,
    autovacuumCount: n,
    autovacuums: 1,
    lastAutovacuum: null,
    vacuumBusyShare: 0.3,
    oldestFinishedSeconds: 130,
    oldestSnapshotSeconds: 10,
    oldestSnapshotHolder: 'autovacuum worker: autovacuum: VACUUM ANALYZE t',
    replicasCpuPercent: 30,
    postgresCpuPercent: 100,
    loadAverage: 2,
    waits: 'CPU 1.00',
    ...overrides,
  };
}

function samples(perSecond: number, endToEndP99: number, claimP99: number): WindowSamples {
  const window = new WindowSamples();
  // 100 samples: the 99th is the nearest-rank p99.
  const spread = (p99: number): number[] => Array.from({ length: 100 }, (_, i) => (i < 98 ? p99 / 10 : p99));
  window.add(perSecond * 60, 60, spread(endToEndP99), spread(claimP99));
  return window;
}

function input(minutes: SoakMinute[], overrides: Partial<VerdictInput> = {}): VerdictInput {
  return {
    minutes,
    window: comparisonWindow(minutes.length),
    first: samples(1_000, 50, 20),
    last: samples(1_000, 50, 20),
    steadyFrom: 3,
    retentionMs: 60_000,
    ...overrides,
  };
}

const byName = (checks: ReturnType<typeof soakChecks>, start: string) => checks.find((c) => c.name.startsWith(start))!;

describe('the soak (bench:soak)', () => {
  const steady = Array.from({ length: 12 }, (_, i) => minute(i + 1));

  it('passes a run whose last third matches its first, whose table holds its size and whose dead tuples stay bounded', () => {
    const checks = soakChecks(input(steady));
    expect(checks.map((c) => [c.name, c.pass])).toEqual([
      ['throughput, last third (4 min) against the first third', true],
      ['end-to-end p99, last third (4 min) against the first third', true],
      ['claim p99, last third (4 min) against the first third', true],
      ['consumers kept up in the last third', true],
      ['table + index size flat from minute 3', true],
      ['dead tuples bounded from minute 3', true],
    ]);
    expect(soakVerdictLine(checks)).toBe('PASS');
  });

  it('fails a table that keeps growing after retention deletes, and says by how much', () => {
    // +2 % a minute over minutes 3–12: +18 % on the trend.
    const growing = steady.map((m) => ({ ...m, totalBytes: m.totalBytes * (1 + 0.02 * (m.minute - 3)) }));
    const size = byName(soakChecks(input(growing)), 'table + index size flat');
    expect(size.pass).toBe(false);
    expect(size.measured).toContain('trend +18.0 % over 9 min');
  });

  it('fails dead tuples that pile up, and a run where autovacuum never ran', () => {
    const piling = steady.map((m) => ({ ...m, deadTuplesMax: 150_000 + 20_000 * m.minute }));
    expect(byName(soakChecks(input(piling)), 'dead tuples bounded').pass).toBe(false);
    const unvacuumed = steady.map((m) => ({ ...m, autovacuums: 0 }));
    expect(byName(soakChecks(input(unvacuumed)), 'dead tuples bounded').pass).toBe(false);
  });

  it('fails a p99 that rose more than 15 %, not one that fell', () => {
    expect(byName(soakChecks(input(steady, { last: samples(1_000, 60, 20) })), 'end-to-end p99').pass).toBe(false);
    expect(byName(soakChecks(input(steady, { last: samples(1_000, 20, 20) })), 'end-to-end p99').pass).toBe(true);
    expect(byName(soakChecks(input(steady, { last: samples(1_000, 50, 24) })), 'claim p99').pass).toBe(false);
  });

  it('fails throughput more than 15 % from the first window, either way, and a backlog that was not worked off', () => {
    expect(byName(soakChecks(input(steady, { last: samples(800, 50, 20) })), 'throughput').pass).toBe(false);
    expect(byName(soakChecks(input(steady, { last: samples(1_200, 50, 20) })), 'throughput').pass).toBe(false);
    const behind = steady.map((m) => (m.minute === 11 ? { ...m, backlog: 6_000 } : m));
    expect(byName(soakChecks(input(behind)), 'consumers kept up').pass).toBe(false);
  });

  it('compares ten-minute windows from 30 minutes on, and says it compares thirds below that', () => {
    expect(comparisonWindow(60)).toEqual({ minutes: 10, thirds: false });
    expect(comparisonWindow(12)).toEqual({ minutes: 4, thirds: true });
    const hour = Array.from({ length: 60 }, (_, i) => minute(i + 1));
    expect(soakChecks(input(hour))[0].name).toBe('throughput, last 10 min against the first 10');
  });

  it('leaves the trends unjudged when too few minutes follow the retention age, and says so', () => {
    const short = Array.from({ length: 4 }, (_, i) => minute(i + 1));
    const checks = soakChecks(input(short));
    expect(byName(checks, 'table + index size flat').pass).toBeUndefined();
    expect(soakVerdictLine(checks)).toBe('PASS; not judged: table + index size flat; dead tuples bounded');
  });

  it('runs an hour with a five-minute retention by default, and scales retention to a short run', () => {
    const hour = readSoakConfig([]);
    expect([hour.minutes, hour.replicas, hour.loadShare, hour.retentionMs, hour.label]).toEqual([
      60,
      4,
      0.7,
      300_000,
      'soak-60min',
    ]);
    expect(steadyFromMinute(hour)).toBe(7);
    const short = readSoakConfig(['--minutes', '12', '--rate=1000']);
    expect([short.minutes, short.retentionMs, short.rate, short.label]).toEqual([12, 72_000, 1_000, 'soak-12min']);
    expect(() => readSoakConfig(['--minute', '10'])).toThrow(/unknown argument "--minute"/);
    expect(() => readSoakConfig(['--minutes', '2'])).toThrow(/--minutes must be an integer ≥ 3/);
  });

  it('writes the series as CSV, quoting the wait profile', () => {
    const csv = seriesCsv([minute(1, { waits: 'CPU 1.00, IO:WALSync 0.40' })]);
    const [header, row] = csv.trim().split('\n');
    expect(header.split(',')).toContain('deadTuplesMax');
    expect(row.endsWith(',"CPU 1.00, IO:WALSync 0.40"')).toBe(true);
  });
});
