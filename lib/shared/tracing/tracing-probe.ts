import { Injectable, type OnModuleInit } from '@nestjs/common';
import { probeTracing } from './messaging-tracer.js';

/**
 * Checks once, as QueueBox starts, whether an OpenTelemetry SDK records spans: after that the
 * per-message cost without one is a single variable read.
 */
@Injectable()
export class TracingProbe implements OnModuleInit {
  onModuleInit(): void {
    probeTracing();
  }
}
