import type { DataSourceOptions } from 'typeorm';
import { CliUsageError } from '../errors/cli-usage.error.js';
import { urlNeedsDatabase, urlNotUrl, urlRequired, urlScheme } from './cli.messages.js';

/** The environment variable that stands in for `--url`: a URL there stays out of shell history and `ps`. */
export const DATABASE_URL_VARIABLE = 'QUEUEBOX_DATABASE_URL';

/** Connections of the CLI's pool: it runs one statement at a time. */
const CLI_POOL_SIZE = 2;

/** A database to connect to, picked by the URL's scheme. */
export interface CliConnection {
  dialect: 'postgres' | 'mssql';
  options: DataSourceOptions;
  /** The URL with its password replaced by `***`, for output. */
  masked: string;
}

/**
 * Reads a connection URL: `postgres://` (or `postgresql://`) for PostgreSQL, handed to `pg` as
 * is (so `?sslmode=…` and the like work); `mssql://` (or `sqlserver://`)
 * `user:password@host:port/database?encrypt=true&trustServerCertificate=false` for SQL Server.
 * Never echoes the value: it may hold a password.
 */
export function parseConnectionUrl(value: string | undefined): CliConnection {
  if (value === undefined || value === '') throw new CliUsageError('--url', urlRequired());
  if (!URL.canParse(value)) throw new CliUsageError('--url', urlNotUrl());
  const url = new URL(value);
  const masked = maskUrl(value);
  if (url.protocol === 'postgres:' || url.protocol === 'postgresql:') {
    return { dialect: 'postgres', masked, options: { type: 'postgres', url: value, poolSize: CLI_POOL_SIZE, applicationName: 'queuebox-cli' } };
  }
  if (url.protocol === 'mssql:' || url.protocol === 'sqlserver:') {
    const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
    if (!database) throw new CliUsageError('--url', urlNeedsDatabase());
    const flag = (name: string, fallback: boolean): boolean => {
      const given = url.searchParams.get(name);
      return given === null ? fallback : given === 'true' || given === '1';
    };
    return {
      dialect: 'mssql',
      masked,
      options: {
        type: 'mssql',
        host: url.hostname,
        port: Number(url.port || 1433),
        username: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        database,
        pool: { max: CLI_POOL_SIZE },
        options: { encrypt: flag('encrypt', true), trustServerCertificate: flag('trustServerCertificate', false), appName: 'queuebox-cli' },
      },
    };
  }
  throw new CliUsageError('--url', urlScheme(url.protocol.replace(/:$/, '')));
}

/** The URL with its password (if any) replaced by `***`; text that is not a URL is hidden whole. */
export function maskUrl(value: string): string {
  if (!URL.canParse(value)) return '***';
  const url = new URL(value);
  if (url.password !== '') url.password = '***';
  return url.toString();
}

/**
 * The passwords of every URL among `texts` (arguments, the environment variable), raw and
 * decoded: the CLI scrubs them from anything it prints, a driver's error message included.
 */
export function secretsOf(texts: readonly (string | undefined)[]): string[] {
  const secrets = new Set<string>();
  for (const text of texts) {
    for (const candidate of (text ?? '').split(/\s+|=/)) {
      if (!candidate.includes('://') || !URL.canParse(candidate)) continue;
      const password = new URL(candidate).password;
      if (password === '') continue;
      secrets.add(password);
      secrets.add(decodeURIComponent(password));
    }
  }
  return [...secrets].filter((secret) => secret.length > 0).sort((a, b) => b.length - a.length);
}
