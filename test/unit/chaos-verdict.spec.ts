import { describe, expect, it } from 'vitest';
import { readChaosConfig } from '../../chaos/chaos-config.js';
import { verdictOf, type CheckCounters, type FaultCounters } from '../../chaos/verdict.js';

const clean: CheckCounters = {
  committed: 10,
  rolledBack: 2,
  fed: 8,
  delivered: 14,
  duplicates: 1,
  intakeDuplicates: 3,
  effects: 4,
  lost: 0,
  rolledBackDelivered: 0,
  orderViolations: 0,
  doubleEffects: 0,
  doubleForwards: 0,
  stuck: 0,
  lateFencedWrites: 0,
  landedAfterLease: 2,
  stolenLeases: 0,
  auditedWrites: 30,
};
const faults: FaultCounters = {
  kills: 1,
  stops: 1,
  terminations: 1,
  terminatedBackends: 5,
  cuts: 1,
  restarts: 1,
  failovers: 0,
  crashes: 0,
  stalledLoops: 0,
  notListening: 0,
};

describe('the chaos verdict', () => {
  it('passes a clean run with every kind of fault, on one line with every counter', () => {
    const verdict = verdictOf(clean, faults, 42);
    expect(verdict.pass).toBe(true);
    expect(verdict.line).toBe(
      'chaos: PASS committed=10 rolledBack=2 fed=8 delivered=14 duplicates=1 intakeDuplicates=3 effects=4 lost=0 rolledBackDelivered=0 ' +
        'orderViolations=0 doubleEffects=0 doubleForwards=0 stuck=0 lateFencedWrites=0 landedAfterLease=2 stolenLeases=0 auditedWrites=30 ' +
        'kills=1 stops=1 terminations=1 terminatedBackends=5 cuts=1 restarts=1 failovers=0 crashes=0 stalledLoops=0 notListening=0 seconds=42',
    );
  });

  it('requires a failover on an HA pair, and puts the recovery after each failover on the line', () => {
    const injected = ['kills', 'stops', 'terminations', 'cuts', 'restarts', 'failovers'] as const;
    expect(verdictOf(clean, faults, 1, undefined, injected).reasons).toEqual(['no failovers']);
    const verdict = verdictOf(clean, { ...faults, failovers: 2 }, 7, undefined, injected, {
      failoverRecoveryMs: '333,never',
    });
    expect(verdict.pass).toBe(true);
    expect(
      verdict.line.endsWith(
        ' failovers=2 crashes=0 stalledLoops=0 notListening=0 seconds=7 failoverRecoveryMs=333,never',
      ),
    ).toBe(true);
  });

  it.each([
    'lost',
    'rolledBackDelivered',
    'orderViolations',
    'doubleEffects',
    'doubleForwards',
    'stuck',
    'lateFencedWrites',
    'stolenLeases',
  ] as const)('fails when %s moved', (name) => {
    const verdict = verdictOf({ ...clean, [name]: 1 }, faults, 1);
    expect(verdict.pass).toBe(false);
    expect(verdict.line.startsWith('chaos: FAIL ')).toBe(true);
    expect(verdict.reasons).toEqual([`${name}=1`]);
  });

  it.each(['crashes', 'stalledLoops', 'notListening'] as const)('fails when a replica %s', (name) => {
    const verdict = verdictOf(clean, { ...faults, [name]: 1 }, 1);
    expect(verdict.pass).toBe(false);
    expect(verdict.reasons).toEqual([`${name}=1`]);
  });

  it('fails a run in which a kind of fault never happened, or nothing flowed', () => {
    expect(verdictOf(clean, { ...faults, stops: 0 }, 1).reasons).toEqual(['no stops']);
    expect(verdictOf(clean, { ...faults, cuts: 0, restarts: 0 }, 1).reasons).toEqual(['no cuts', 'no restarts']);
    // On an external database there is no crash-restart to require.
    expect(
      verdictOf(clean, { ...faults, restarts: 0 }, 1, undefined, ['kills', 'stops', 'terminations', 'cuts']).pass,
    ).toBe(true);
    expect(verdictOf({ ...clean, effects: 0 }, faults, 1).reasons).toEqual(['nothing flowed']);
  });

  it('names the control, which sends nothing to the intake', () => {
    const verdict = verdictOf({ ...clean, fed: 0, effects: 0, lateFencedWrites: 3 }, faults, 1, 'no-fence');
    expect(verdict.line.startsWith('chaos: FAIL control=no-fence ')).toBe(true);
    expect(verdict.reasons).toEqual(['lateFencedWrites=3']);
  });
});

describe('the chaos command line', () => {
  it('starts from a profile and takes overrides', () => {
    const config = readChaosConfig(['--profile', 'ci', '--messages=500', '--control', 'no-order', '--keep-schema']);
    expect(config).toMatchObject({ profile: 'ci', messages: 500, control: 'no-order', keepSchema: true, replicas: 3 });
    expect(config.stopMs).toBeGreaterThan(config.leaseMs);
    expect(readChaosConfig([]).messages).toBe(200_000);
  });

  it('orders the timings: a SIGSTOP past the lease, the statement deadline past a SIGSTOP, a network cut past the deadline', () => {
    for (const profile of ['ci', 'long']) {
      const config = readChaosConfig(['--profile', profile]);
      expect(config.stopMs).toBeGreaterThan(config.leaseMs);
      expect(config.statementTimeoutMs).toBeGreaterThan(config.stopMs);
      expect(config.cutMs.min).toBeGreaterThan(config.statementTimeoutMs);
      expect(config.cutMs.min).toBeGreaterThan(config.leaseMs);
    }
  });

  it('sets production from a feed rate, and the intake share', () => {
    const config = readChaosConfig(['--messages', '200000', '--rate', '80', '--intake-percent', '20']);
    expect(config.produceSeconds).toBe(2_500);
    expect(config.intakeShare).toBe(0.2);
    expect(() => readChaosConfig(['--rate', '10', '--produce-seconds', '5'])).toThrow('not both');
    expect(() => readChaosConfig(['--intake-percent', '100'])).toThrow(
      '--intake-percent must be an integer from 1 to 99',
    );
  });

  it('runs the failover fault in both profiles unless told not to, and PgBouncer on request', () => {
    for (const profile of ['ci', 'long']) {
      const config = readChaosConfig(['--profile', profile]);
      expect(config).toMatchObject({ failover: true, pooler: undefined, address: 'vip' });
      expect(readChaosConfig(['--profile', profile, '--no-failover']).failover).toBe(false);
    }
    // The whole run of the CI profile sees the four database faults while messages flow.
    const ci = readChaosConfig(['--profile', 'ci']);
    expect(ci.databaseFaultEveryMs * 4).toBeLessThanOrEqual(ci.produceSeconds * 1000);
    expect(readChaosConfig(['--pooler', 'pgbouncer']).pooler).toBe('pgbouncer');
    expect(readChaosConfig(['--address', 'dns']).address).toBe('dns');
    expect(() => readChaosConfig(['--pooler', 'pgpool'])).toThrow('--pooler must be pgbouncer');
    expect(() => readChaosConfig(['--pooler', 'pgbouncer', '--address', 'dns'])).toThrow(
      'with --pooler, PgBouncer is the address',
    );
    expect(() => readChaosConfig(['--failover', '--no-failover'])).toThrow('not both');
  });

  it('refuses an unknown option or value', () => {
    expect(() => readChaosConfig(['--mesages', '5'])).toThrow('unknown option --mesages');
    expect(() => readChaosConfig(['--control', 'no-lease'])).toThrow('--control must be no-fence or no-order');
    expect(() => readChaosConfig(['--messages', '0'])).toThrow('--messages must be a positive integer');
  });
});
