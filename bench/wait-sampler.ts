import pg from 'pg';
import { ADMIN_APPLICATION_NAME } from './bench-wal.js';

/** The producer process's backends (its pool's application_name). */
export const PRODUCER_APPLICATION_NAME = 'queuebox-bench-producer';
/** The sampler's own connection, left out of its samples. */
const SAMPLER_APPLICATION_NAME = 'queuebox-bench-sampler';

/** `url` with `application_name` set (node-postgres reads it from the connection string). */
export function withApplicationName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', name);
  return parsed.toString();
}

/** What the producer's and the consumer's active backends were waiting on, as shares of the samples. */
export interface WaitProfile {
  samples: number;
  /** `side: wait` → backends seen in that state, over all samples (e.g. `producer: Lock:object` → 0.4 backends on average). */
  backends: Map<string, number>;
}

/**
 * Samples pg_stat_activity every `everyMs` on a connection of its own: each active client backend
 * (neither idle nor the admin pool's or its own), by side (`producer` by application name, else
 * `consumer`) and wait event (`Lock:object` is the database-wide lock a notifying commit takes;
 * `Lock:advisory` a claim lock; `IO:WALSync` and `LWLock:WALWrite` the commit's WAL flush;
 * `CPU` no wait). A sample costs the server about a hundred microseconds: at 20 ms, about half a
 * per cent of one core.
 */
export async function startWaitSampler(url: string, everyMs = 20): Promise<{ stop(): Promise<WaitProfile> }> {
  const client = new pg.Client({ connectionString: url, application_name: SAMPLER_APPLICATION_NAME });
  await client.connect();
  const backends = new Map<string, number>();
  let samples = 0;
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const { rows } = await client.query<{ side: string; wait: string }>(
        `SELECT CASE WHEN application_name = $1 THEN 'producer' ELSE 'consumer' END AS side,
                COALESCE(wait_event_type || ':' || wait_event, 'CPU') AS wait
         FROM pg_stat_activity
         WHERE backend_type = 'client backend' AND state <> 'idle' AND pid <> pg_backend_pid() AND application_name NOT IN ($2, $3)`,
        [PRODUCER_APPLICATION_NAME, ADMIN_APPLICATION_NAME, SAMPLER_APPLICATION_NAME],
      );
      samples += 1;
      for (const row of rows) {
        const key = `${row.side}: ${row.wait}`;
        backends.set(key, (backends.get(key) ?? 0) + 1);
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await running;
      await client.end();
      return { samples, backends: new Map([...backends].map(([key, n]) => [key, n / Math.max(samples, 1)])) };
    },
  };
}

/** The profile's largest entries, e.g. `producer: IO:WALSync 0.41, consumer: CPU 0.30`. */
export function waitProfileText(profile: WaitProfile, top = 8): string {
  const entries = [...profile.backends].sort((a, b) => b[1] - a[1]).slice(0, top);
  return entries.length === 0
    ? `nothing active in ${profile.samples} samples`
    : `${entries.map(([key, n]) => `${key} ${n.toFixed(2)}`).join(', ')} (backends on average over ${profile.samples} samples)`;
}
