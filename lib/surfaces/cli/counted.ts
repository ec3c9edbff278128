/** A count with its noun in the right number: `1 row`, `0 rows`, `2 statements`. */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
