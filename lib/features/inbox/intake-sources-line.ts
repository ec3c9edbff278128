/** Sources the start-up line names one by one; past that, it counts the rest. */
export const LISTED_SOURCES = 30;

const UNSIGNED = 'UNSIGNED: accepts requests from anyone who can reach it';

/**
 * The intake's start-up line: the sources it accepts, and which of them are unsigned. A few dozen
 * are named; with more (an application with thousands of sources would write a line of megabytes
 * on every start) the line gives the counts and names the unsigned sources first, which are the
 * ones an operator must not miss.
 */
export function intakeSourcesLine(sources: ReadonlyMap<string, { secrets?: readonly Buffer[] }>): string {
  const entries = [...sources.entries()];
  const describe = ([name, source]: (typeof entries)[number]) => `${name} (${source.secrets ? 'signed' : UNSIGNED})`;
  if (entries.length <= LISTED_SOURCES) return `inbox intake accepts sources: ${entries.map(describe).join(', ')}`;
  const unsigned = entries.filter(([, source]) => !source.secrets);
  const listed = [...unsigned, ...entries.filter(([, source]) => source.secrets)].slice(0, LISTED_SOURCES);
  return (
    `inbox intake accepts ${entries.length} sources, ${entries.length - unsigned.length} signed and ${unsigned.length} unsigned: ` +
    `${listed.map(describe).join(', ')} and ${entries.length - listed.length} more`
  );
}
