import type { DataSourceOptions } from 'typeorm';
import { dialectOfScheme, schemeOfUrl } from '../../database/dialects/dialect-registry.js';
import { InvalidArgumentError } from '../../shared/errors/invalid-argument.error.js';
import { badConformanceUrl } from './conformance.messages.js';

/**
 * The TypeORM options of a database URL, made by the profile of the database its scheme names
 * (dialect-registry.ts): `postgres://…`, or
 * `mssql://user:password@host:port/database?encrypt=true&trustServerCertificate=true`.
 * `poolSize` connections at most.
 */
export function dataSourceOptionsFromUrl(url: string, poolSize: number): DataSourceOptions {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const profile = parsed && dialectOfScheme(schemeOfUrl(parsed));
  if (!parsed || !profile) throw new InvalidArgumentError('url', badConformanceUrl(url));
  return profile.url.dataSourceOptions(url, parsed, { applicationName: 'queuebox-conformance', poolSize });
}
