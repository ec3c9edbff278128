/**
 * An ISO 8601 date-time with a zone (`2026-01-31T12:00:00Z`, `…+01:00`, seconds and fractions
 * optional): a time without a zone would be read in the server's zone.
 */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|([+-])(\d{2}):(\d{2}))$/i;

/**
 * The instant an ISO 8601 date-time with a zone names, or undefined when the text is not one or
 * names no real time. `Date` rolls an impossible date over (`2026-02-31` is 3 March) and reads
 * hour 24 as the next day: a filter given such a date would silently select other rows, so every
 * field must be in its range, and the day must exist in its month.
 */
export function parseIsoInstant(text: string): Date | undefined {
  const match = ISO_INSTANT.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute] = match.slice(1, 6).map(Number);
  const [second, offsetHours, offsetMinutes] = [match[6], match[8], match[9]].map((part) => Number(part ?? 0));
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const instant = new Date(text);
  return Number.isNaN(instant.getTime()) ? undefined : instant;
}

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}
