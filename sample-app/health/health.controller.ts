import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { QueueBoxHealthIndicator } from '../../lib/surfaces/health/index.js';

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly queueBox: QueueBoxHealthIndicator,
  ) {}

  /** 200 while every QueueBox loop of this application (outbox poller, relay, pull workers) runs and ticks; 503 otherwise. */
  @Get()
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    return this.health.check([() => this.queueBox.isHealthy()]);
  }
}
