import type { DataSourceOptions } from 'typeorm';
import { InvalidArgumentError } from '../errors/invalid-argument.error.js';
import { badConformanceUrl } from './conformance.messages.js';

/**
 * The TypeORM options of a database URL: `postgres://` (or `postgresql://`), or
 * `mssql://user:password@host:port/database?encrypt=true&trustServerCertificate=true`
 * (`sqlserver://` too). `poolSize` connections at most.
 */
export function dataSourceOptionsFromUrl(url: string, poolSize: number): DataSourceOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidArgumentError('url', badConformanceUrl(url));
  }
  const protocol = parsed.protocol.replace(/:$/, '');
  if (protocol === 'postgres' || protocol === 'postgresql') {
    return { type: 'postgres', url, applicationName: 'queuebox-conformance', extra: { max: poolSize } };
  }
  if (protocol === 'mssql' || protocol === 'sqlserver') {
    const flag = (name: string, fallback: boolean): boolean => {
      const value = parsed.searchParams.get(name);
      return value === null ? fallback : value === 'true' || value === '1';
    };
    return {
      type: 'mssql',
      host: parsed.hostname,
      port: parsed.port ? Number(parsed.port) : 1433,
      username: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      database: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || undefined,
      pool: { max: poolSize },
      options: { encrypt: flag('encrypt', true), trustServerCertificate: flag('trustServerCertificate', false), appName: 'queuebox-conformance' },
    };
  }
  throw new InvalidArgumentError('url', badConformanceUrl(url));
}
