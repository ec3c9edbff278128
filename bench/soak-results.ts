import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { f0 } from './bench-stats.js';
import type { CarriedRate } from './soak-carried.js';
import { RETENTION_INTERVAL_MS, type SoakConfig } from './soak-config.js';
import type { DrainMeasurement } from './soak-drain.js';
import { writeSoakPlot } from './soak-plot.js';
import { seriesCsv, type SoakMinute } from './soak-series.js';
import { soakChecks, soakFacts, soakVerdictLine, type SoakCheck, type WindowSamples } from './soak-verdict.js';

/** Everything a soak records: written as JSON after every minute, so that a run cut short still leaves its series. */
export interface SoakResults {
  label: string;
  startedAt: string;
  finishedAt?: string;
  machine: { cores: number; cpu: string; node: string; loadAverageAtStart: number[]; loadAverageAtEnd?: number[] };
  server: { description: string; version: string; settings: Record<string, string> };
  config: Omit<SoakConfig, 'imageDir' | 'dataDir'> & { retentionIntervalMs: number };
  drain?: { warmup: DrainMeasurement; measured: DrainMeasurement };
  carried?: CarriedRate;
  offeredPerSecond?: number;
  /** How the offered rate was chosen. */
  offeredFrom?: string;
  steadyFrom: number;
  window: { minutes: number; thirds: boolean };
  minutes: SoakMinute[];
  checks?: SoakCheck[];
  facts?: string[];
  verdict?: string;
  /** The plot, relative to the repository (docs/benchmark.md cites it so). */
  plot?: string;
}

export interface SoakPaths {
  json: string;
  csv: string;
  png: string;
}

export function soakPaths(config: Pick<SoakConfig, 'label' | 'dataDir' | 'imageDir'>): SoakPaths {
  return {
    json: join(config.dataDir, `${config.label}.json`),
    csv: join(config.dataDir, `${config.label}.csv`),
    png: join(config.imageDir, `${config.label}.png`),
  };
}

/** The series so far, as JSON (everything) and CSV (a row per minute). */
export async function writeSoakData(results: SoakResults, paths: SoakPaths): Promise<void> {
  await mkdir(dirname(paths.json), { recursive: true });
  await writeFile(paths.json, `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(paths.csv, seriesCsv(results.minutes));
}

/** Prints the verdict and the facts beside it, renders the plot and writes the results a last time. */
export async function reportSoak(
  results: SoakResults,
  run: {
    first: WindowSamples;
    last: WindowSamples;
    failure: string | undefined;
    paths: SoakPaths;
    print: (line: string) => void;
  },
): Promise<void> {
  const { config, window } = results;
  const print = run.print;
  print(
    `\n=== Verdict (${window.thirds ? 'a short run: the last third of its minutes against the first third, where an hour compares its last 10 against its first 10' : 'the last 10 minutes against the first 10'})`,
  );
  if (results.minutes.length < 2 * Math.max(window.minutes, 1)) {
    results.verdict = `FAIL (${run.failure ?? 'the run ended'} after ${results.minutes.length} minute(s): too few to compare)`;
  } else {
    const input = {
      minutes: results.minutes,
      window,
      first: run.first,
      last: run.last,
      steadyFrom: results.steadyFrom,
      retentionMs: config.retentionMs,
      failure: run.failure,
    };
    results.checks = soakChecks(input);
    results.facts = soakFacts(input);
    results.verdict = soakVerdictLine(results.checks);
    for (const check of results.checks)
      print(`  ${check.pass === undefined ? 'n/a ' : check.pass ? 'pass' : 'FAIL'}  ${check.name}: ${check.measured}`);
    for (const fact of results.facts) print(`  -     ${fact}`);
  }
  print(`  => ${results.verdict}`);
  if (results.minutes.length > 0) {
    const plot = await writeSoakPlot(
      {
        title: `QueueBox soak, ${results.minutes.length} min (${results.label}): ${results.verdict.split(' ')[0]}`,
        subtitle: [
          `${results.startedAt.slice(0, 16).replace('T', ' ')} UTC; ${results.server.description}; ${results.server.version}; ${results.machine.cores} cores, load average ${results.machine.loadAverageAtStart.map((n) => n.toFixed(1)).join(' ')} at the start`,
          `${config.replicas} replicas at QueueBox's defaults; ${f0(results.offeredPerSecond ?? 0)} msg/s offered: ${results.offeredFrom ?? ''}; transactions of ${config.batch}; ${config.keys === 0 ? 'no keys' : `${f0(config.keys)} keys`}`,
          `retention: rows sent more than ${f0(config.retentionMs / 1000)} s ago, swept every ${RETENTION_INTERVAL_MS / 1000} s; end-to-end = producer's transaction began → published`,
        ],
        minutes: results.minutes,
        window,
        steadyFrom: results.steadyFrom,
      },
      run.paths.png,
    );
    // docs/data/ is two levels below the repository.
    results.plot = relative(join(dirname(run.paths.json), '..', '..'), plot);
    print(`  plot: ${relative(process.cwd(), plot)}`);
  }
  await writeSoakData(results, run.paths);
  print(`  series: ${relative(process.cwd(), run.paths.csv)}, ${relative(process.cwd(), run.paths.json)}`);
}
