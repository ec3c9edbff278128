import { Injectable, Logger, type NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Logs each delivery to the HTTP intake with its answer (202 accepted, 200 duplicate, 401 bad
 * signature, ...). The intake itself logs nothing for a delivery it stores; this makes the hop
 * visible in the sample's output.
 */
@Injectable()
export class IntakeLogMiddleware implements NestMiddleware {
  private readonly logger = new Logger('ShippingIntake');

  use(request: IncomingMessage & { originalUrl?: string }, response: ServerResponse, next: () => void): void {
    const path = request.originalUrl ?? request.url ?? '';
    const messageId = request.headers['webhook-id'] ?? request.headers['x-message-id'] ?? 'none';
    response.on('finish', () => {
      const outcome = STATUS_MEANING[response.statusCode] ?? 'refused';
      this.logger.log(`POST ${path} webhook-id ${String(messageId)} → ${response.statusCode} (${outcome})`);
    });
    next();
  }
}

const STATUS_MEANING: Record<number, string> = {
  202: 'stored',
  200: 'duplicate, already stored',
  400: 'refused: no webhook-id, or not UTF-8 JSON',
  401: 'refused: bad signature',
  404: 'refused: unknown source',
  413: 'refused: too large',
  415: 'refused: not application/json',
  500: 'failed: not stored, the sender retries',
};
