/**
 * `queuebox/conformance`: runs QueueBox's claim contract against your database (a managed
 * PostgreSQL behind a proxy, Azure SQL, a promoted replica) and reports each check with what it
 * observed. The same check as `npx queuebox conformance --url …`.
 * @packageDocumentation
 */
export { runConformance, type ConformanceOptions } from './run-conformance.js';
export {
  formatConformanceReport,
  type ConformanceCheck,
  type ConformanceCheckName,
  type ConformanceReport,
} from './conformance-report.js';
