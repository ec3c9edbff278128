import type pg from 'pg';

/** What every scenario gets: the server, an admin pool for setup and checks, and the printer. */
export interface BenchContext {
  url: string;
  /** Setup, seeding and counting only; never timed. */
  admin: pg.Pool;
  /** The bench's own server runs on this machine: its postmaster, whose processes' CPU time can be read. */
  postmasterPid: number | undefined;
  print(line: string): void;
  heading(title: string): void;
}
