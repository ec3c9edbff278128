/** A check that did not hold: `message` is the reason, as the report shows it. */
export class ConformanceFailure extends Error {}

/** Fails the check with `reason` unless `condition` holds. */
export function expectThat(condition: boolean, reason: string): asserts condition {
  if (!condition) throw new ConformanceFailure(reason);
}
