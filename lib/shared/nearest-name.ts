/**
 * The name of `known` that `given` was most likely meant to be, for a "did you mean" hint: one
 * that differs only in case, or by at most two edits (a typo, two swapped letters). Undefined when
 * none is that close. The options validator and the command line share it.
 */
export function nearestName(given: string, known: readonly string[]): string | undefined {
  return known.find(
    (candidate) => candidate.toLowerCase() === given.toLowerCase() || editDistance(candidate, given) <= 2,
  );
}

/** Levenshtein distance, for "did you mean" hints on short names. */
function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}
