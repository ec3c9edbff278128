import type { DataSourceOptions } from 'typeorm';
import { CliUsageError } from '../errors/cli-usage.error.js';
import { maskUrl, urlSecrets } from '../runtime/url-secrets.js';
import { urlNeedsDatabase, urlNotUrl, urlRequired, urlScheme } from './cli.messages.js';

/** The environment variable that stands in for `--url`: a URL there stays out of shell history and `ps`. */
export const DATABASE_URL_VARIABLE = 'QUEUEBOX_DATABASE_URL';

/** Connections of the CLI's pool: it runs one statement at a time. */
const CLI_POOL_SIZE = 2;

/** A database to connect to, picked by the URL's scheme. */
export interface CliConnection {
  dialect: 'postgres' | 'mssql';
  options: DataSourceOptions;
  /** The URL with its password and secret query values replaced by `***`, for output. */
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

export { maskUrl };

/**
 * The secrets of every URL among `texts` (arguments, the environment variable): passwords and
 * the values of secret query parameters (`?password=`, `?sslpassword=`, `?sslkey=`; see
 * `isSecretParameter`), raw and decoded. The CLI scrubs them from anything it prints, a driver's
 * error message included. Longest first, so that a secret containing another is scrubbed whole.
 */
export function secretsOf(texts: readonly (string | undefined)[]): string[] {
  const secrets = new Set<string>();
  for (const text of texts) {
    for (const word of (text ?? '').split(/\s+/)) {
      // `--url=postgres://…`: the URL starts after the flag's `=`; a URL's own `=`s stay in it.
      for (const candidate of [word, word.slice(word.indexOf('=') + 1)]) {
        if (candidate.includes('://')) for (const secret of urlSecrets(candidate)) secrets.add(secret);
      }
    }
  }
  return [...secrets].sort((a, b) => b.length - a.length);
}
