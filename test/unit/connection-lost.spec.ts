import { describe, expect, it } from 'vitest';
import { classifyMssqlError } from '../../lib/database/dialects/mssql/mssql-errors.js';
import { classifyPostgresError } from '../../lib/database/dialects/postgres/postgres-errors.js';

/** The shapes TypeORM's QueryFailedError and the drivers give a lost connection (start-up tries the check again for these only). */
describe('a lost connection', () => {
  it("is told apart on PostgreSQL: server codes, socket codes, and node-postgres's own message", () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', 'ECONNREFUSED', 'ECONNRESET'])
      expect(classifyPostgresError({ code }), code).toBe('connection-lost');
    expect(classifyPostgresError({ driverError: { code: '57P01' } })).toBe('connection-lost');
    expect(
      classifyPostgresError({
        message: 'Connection terminated unexpectedly',
        driverError: new Error('Connection terminated unexpectedly'),
      }),
    ).toBe('connection-lost');
    expect(classifyPostgresError({ code: '23505' })).toBeUndefined();
    expect(classifyPostgresError(new Error('something else'))).toBeUndefined();
  });

  it("is told apart on SQL Server: the driver's socket and closed-connection codes", () => {
    for (const code of ['ESOCKET', 'ECONNCLOSED', 'ECONNRESET'])
      expect(classifyMssqlError({ code }), code).toBe('connection-lost');
    expect(classifyMssqlError({ driverError: { code: 'ESOCKET' } })).toBe('connection-lost');
    expect(classifyMssqlError({ code: 'ETIMEOUT' })).toBe('timeout');
    expect(classifyMssqlError({ code: 'ELOGIN' })).toBeUndefined();
  });
});
