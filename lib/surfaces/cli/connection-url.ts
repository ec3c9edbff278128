import type { DataSourceOptions } from 'typeorm';
import {
  dialectOfScheme,
  dialectSchemes,
  schemeOfUrl,
  urlNamesDatabase,
  type DialectName,
} from '../../database/dialects/dialect-registry.js';
import { CliUsageError } from '../../shared/errors/cli-usage.error.js';
import { maskUrl, urlSecrets } from '../../config/validation/url-secrets.js';
import { urlNeedsDatabase, urlNotUrl, urlRequired, urlScheme } from './cli.messages.js';

/** The environment variable that stands in for `--url`: a URL there stays out of shell history and `ps`. */
export const DATABASE_URL_VARIABLE = 'QUEUEBOX_DATABASE_URL';

/** Connections of the CLI's pool: it runs one statement at a time. */
const CLI_POOL_SIZE = 2;

/** A database to connect to, picked by the URL's scheme. */
export interface CliConnection {
  dialect: DialectName;
  options: DataSourceOptions;
  /** The URL with its password and secret query values replaced by `***`, for output. */
  masked: string;
}

/**
 * Reads a connection URL: its scheme picks the database (dialect-registry.ts), whose profile
 * makes the DataSource options (`postgres://…` handed to `pg` as is, so `?sslmode=…` and the like
 * work; `mssql://user:password@host:port/database?encrypt=true&trustServerCertificate=false`).
 * Never echoes the value: it may hold a password.
 */
export function parseConnectionUrl(value: string | undefined): CliConnection {
  if (value === undefined || value === '') throw new CliUsageError('--url', urlRequired());
  if (!URL.canParse(value)) throw new CliUsageError('--url', urlNotUrl());
  const url = new URL(value);
  const profile = dialectOfScheme(schemeOfUrl(url));
  if (!profile) throw new CliUsageError('--url', urlScheme(schemeOfUrl(url), dialectSchemes));
  if (profile.url.needsDatabase && !urlNamesDatabase(url)) throw new CliUsageError('--url', urlNeedsDatabase());
  const options = profile.url.dataSourceOptions(value, url, {
    applicationName: 'queuebox-cli',
    poolSize: CLI_POOL_SIZE,
  });
  return { dialect: profile.name, masked: maskUrl(value), options };
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
