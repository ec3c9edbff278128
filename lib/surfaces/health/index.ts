/**
 * `queuebox/terminus`: health checks for `@nestjs/terminus` (an optional peer; the root entry
 * never imports it).
 * @packageDocumentation
 */
export { QueueBoxHealthIndicator } from './queuebox.health.js';
export { QueueBoxHealthModule } from './queuebox-health.module.js';
export type { HealthFinding } from './health-finding.js';
export type { QueueBoxHealthOptions } from './queuebox-health-options.interface.js';
