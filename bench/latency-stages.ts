import { f2, percentile } from './bench-stats.js';

/** When the consumer's claim of one message started and returned (epoch ms), and how it was claimed. */
export interface ClaimTiming {
  startedAt: number;
  returnedAt: number;
  via: 'claim' | 'hand-off';
  /** Rows the statement claimed. */
  rows: number;
}

/** Everything known of one run, by sequence number, on one wall clock (epoch ms). */
export interface LatencyTrace {
  beganAt: readonly number[];
  /** Inside the producer's transaction, after the pool and BEGIN (the message's notification cannot come earlier). */
  insideAt: readonly number[];
  commitAt: readonly number[];
  publishedAt: Float64Array;
  /** Notifications of the system's channel as a listener in the consumer's process received them, ascending. */
  notifiedAt: readonly number[];
  /** QueueBox only: the claim that took each message. */
  claims?: ReadonlyMap<number, ClaimTiming>;
  /** Messages before this one are the warm-up. */
  firstSeq: number;
}

/** The stages of one message's latency (ms); they add up to publish − commit returned. */
interface Stages {
  latency: number;
  /** The producer's wait for a pooled connection and its BEGIN (not part of the latency). */
  producerPool: number;
  /** The producer's INSERT and COMMIT, up to the commit returned (not part of the latency). */
  commit: number;
  /** Commit returned → the first notification received after the message's transaction began its INSERT (negative: heard before the producer heard its commit). */
  commitToNotify: number;
  /** That notification → the claim that took the message started (NaN without a claim timing). */
  notifyToClaim: number;
  /** The claim statement (or the completion that handed the message on), start → returned. */
  claim: number;
  /** Claim returned → published. */
  claimToPublish: number;
  /** No notification arrived between the message's transaction beginning and its claim starting: a running loop or a poll took it. */
  withoutNotify: boolean;
  via: ClaimTiming['via'] | undefined;
  claimRows: number;
}

/** Index of the first value ≥ `at` in ascending `values` (values.length when none). */
function firstAtOrAfter(values: readonly number[], at: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid] < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function stagesOf(trace: LatencyTrace, seq: number): Stages | undefined {
  const commitAt = trace.commitAt[seq];
  const publishedAt = trace.publishedAt[seq];
  if (Number.isNaN(commitAt) || Number.isNaN(publishedAt)) return undefined;
  const i = firstAtOrAfter(trace.notifiedAt, trace.insideAt[seq]);
  const notifiedAt = i < trace.notifiedAt.length ? trace.notifiedAt[i] : Number.NaN;
  const claim = trace.claims?.get(seq);
  const claimStartedAt = claim?.startedAt ?? publishedAt;
  const withoutNotify = Number.isNaN(notifiedAt) || notifiedAt > claimStartedAt;
  return {
    latency: publishedAt - commitAt,
    producerPool: trace.insideAt[seq] - trace.beganAt[seq],
    commit: commitAt - trace.insideAt[seq],
    commitToNotify: withoutNotify ? Number.NaN : notifiedAt - commitAt,
    notifyToClaim: withoutNotify || !claim ? Number.NaN : claim.startedAt - notifiedAt,
    claim: claim ? claim.returnedAt - claim.startedAt : Number.NaN,
    claimToPublish: claim ? publishedAt - claim.returnedAt : Number.NaN,
    withoutNotify,
    via: claim?.via,
    claimRows: claim?.rows ?? Number.NaN,
  };
}

const STAGE_NAMES: readonly [keyof Stages, string][] = [
  ['producerPool', "producer's pool+BEGIN"],
  ['commit', "producer's INSERT+COMMIT"],
  ['commitToNotify', 'commit→NOTIFY'],
  ['notifyToClaim', 'NOTIFY→claim'],
  ['claim', 'claim statement'],
  ['claimToPublish', 'claim→publish'],
];

const finite = (values: readonly number[]): number[] => values.filter((v) => Number.isFinite(v));
const mean = (values: readonly number[]): number =>
  values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;

/**
 * The latency broken into stages, to find where a tail comes from: p50 / p99 of each stage over
 * the run's messages, then the mean of each stage over the tail (the messages at or above the
 * run's p99), with how those were claimed. Stages a system does not expose print as n/a.
 */
export function latencyStages(trace: LatencyTrace): string[] {
  const all: Stages[] = [];
  for (let seq = trace.firstSeq; seq < trace.commitAt.length; seq++) {
    const stages = stagesOf(trace, seq);
    if (stages) all.push(stages);
  }
  if (all.length === 0) return ['stages: no published message'];
  const p99 = percentile(
    all.map((s) => s.latency),
    99,
  );
  const tail = all.filter((s) => s.latency >= p99);
  const cell = (values: readonly number[], p: number): string => {
    const list = finite(values);
    return list.length ? f2(percentile(list, p)) : 'n/a';
  };
  const lines = [
    `stages p50 / p99 (ms): ${STAGE_NAMES.map(
      ([key, name]) =>
        `${name} ${cell(
          all.map((s) => s[key] as number),
          50,
        )} / ${cell(
          all.map((s) => s[key] as number),
          99,
        )}`,
    ).join('; ')}` +
      `; ${f2((all.filter((s) => s.withoutNotify).length / all.length) * 100)} % claimed with no NOTIFY received since their INSERT`,
    `tail (${tail.length} messages ≥ p99 ${f2(p99)} ms), mean ms: ${STAGE_NAMES.map(([key, name]) => `${name} ${finite(tail.map((s) => s[key] as number)).length ? f2(mean(finite(tail.map((s) => s[key] as number)))) : 'n/a'}`).join('; ')}` +
      `; ${tail.filter((s) => s.withoutNotify).length} with no NOTIFY of their own, ${tail.filter((s) => s.via === 'hand-off').length} handed off, ` +
      `${finite(tail.map((s) => s.claimRows)).length ? f2(mean(finite(tail.map((s) => s.claimRows)))) : 'n/a'} rows per claim (run: ${finite(all.map((s) => s.claimRows)).length ? f2(mean(finite(all.map((s) => s.claimRows)))) : 'n/a'})`,
  ];
  return lines;
}
