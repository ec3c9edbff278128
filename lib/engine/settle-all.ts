/**
 * `Promise.all` that waits for every promise to settle before it rejects with the first failure.
 * Statements run side by side on pooled connections; a caller that closes its DataSource after a
 * failure (the CLI) must not do so while a sibling statement still runs: TypeORM would hand that
 * busy connection back to the pool, and the next query would be queued behind the running one.
 */
export async function settleAll<T extends readonly unknown[] | []>(
  promises: T,
): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const results: readonly PromiseSettledResult<unknown>[] = await Promise.allSettled(promises as readonly unknown[]);
  const values: unknown[] = [];
  for (const result of results) {
    if (result.status === 'rejected') throw result.reason;
    values.push(result.value);
  }
  return values as { -readonly [P in keyof T]: Awaited<T[P]> };
}
