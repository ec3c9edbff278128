/** What the sample needs before its modules are built: where the database is, where it listens. */
export interface SampleConfig {
  /** A PostgreSQL connection URL: `DATABASE_URL`, or the embedded server's. */
  databaseUrl: string;
  /** The HTTP port of the API and of the billing receiver. */
  port: number;
}

/** Reads `PORT` (default 3000); a port the billing destination can point at, so never 0. */
export function readPort(value: string | undefined): number {
  if (value === undefined || value === '') return 3000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`PORT is ${JSON.stringify(value)}; it must be an integer from 1 to 65535.`);
  }
  return port;
}
