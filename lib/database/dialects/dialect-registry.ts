import type { DialectLimits, DialectProfile } from './dialect-profile.interface.js';
import { mssqlDialect } from './mssql/mssql.dialect.js';
import { postgresDialect } from './postgres/postgres.dialect.js';

/**
 * The databases QueueBox runs on, by profile. Adding one is a folder under lib/database/dialects/ and an
 * entry here (contributing/adding-a-dialect.md): the DataSource type, the URL schemes, the CLI,
 * the conformance report and the option bounds all read this list.
 */
const DIALECTS = [postgresDialect, mssqlDialect] as const;

/** A database QueueBox runs on: the TypeORM DataSource type of its profile. */
export type DialectName = (typeof DIALECTS)[number]['name'];

/** Every registered profile, in the order messages list them. */
export const dialectProfiles: readonly DialectProfile<DialectName>[] = DIALECTS;

/** The names of the registered databases, in the order messages list them. */
export const dialectNames: readonly DialectName[] = DIALECTS.map((profile) => profile.name);

/** The profile of a DataSource type, or undefined when QueueBox has none. */
export function dialectOfType(type: string): DialectProfile<DialectName> | undefined {
  return dialectProfiles.find((profile) => profile.name === type);
}

/** The profile of a URL scheme (without the colon), or undefined. */
export function dialectOfScheme(scheme: string): DialectProfile<DialectName> | undefined {
  return dialectProfiles.find((profile) => profile.url.schemes.includes(scheme));
}

/** The scheme of a connection URL, without the colon. */
export const schemeOfUrl = (url: URL): string => url.protocol.replace(/:$/, '');

/** Whether a connection URL names a database: a path after the host. */
export const urlNamesDatabase = (url: URL): boolean => url.pathname.replace(/^\//, '') !== '';

/** Every URL scheme QueueBox reads, in the order messages list them. */
export const dialectSchemes: readonly string[] = dialectProfiles.flatMap((profile) => profile.url.schemes);

/** The profile of a registered name. */
export function dialectProfile(name: DialectName): DialectProfile<DialectName> {
  return dialectOfType(name)!;
}

/**
 * The strictest bound of every registered database: what options are validated against before
 * the DataSource (and so the database) is known, so that valid options are valid on each.
 */
export const strictestLimits: Readonly<DialectLimits> = {
  identifierLength: strictest('identifierLength'),
  tableNameLength: strictest('tableNameLength'),
  intervalMs: strictest('intervalMs'),
  ageMs: strictest('ageMs'),
  keyLength: strictest('keyLength'),
};

function strictest(bound: keyof DialectLimits): number {
  return Math.min(...dialectProfiles.map((profile) => profile.limits[bound]));
}
