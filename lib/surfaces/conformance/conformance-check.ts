import type { ConformanceContext } from './conformance-context.js';
import type { ConformanceCheckName } from './conformance-report.js';

/** One named check of the claim contract. */
export interface ConformanceCheckDefinition {
  name: ConformanceCheckName;
  title: string;
  /** Why the check does not apply to this database (it is then skipped), or undefined. */
  skipReason?(context: ConformanceContext): string | undefined;
  /** Runs the check; resolves to its evidence, or throws `ConformanceFailure` with the reason. */
  run(context: ConformanceContext): Promise<string>;
}
