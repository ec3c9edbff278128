import {
  Controller,
  Headers,
  HttpStatus,
  Inject,
  Logger,
  type OnModuleInit,
  Param,
  Post,
  Req,
  Res,
} from '@nestjs/common';
import { InvalidMessageError } from '../../shared/errors/invalid-message.error.js';
import { PayloadTooLargeError } from '../../shared/errors/payload-too-large.error.js';
import { UnknownSourceError } from '../../shared/errors/unknown-source.error.js';
import { QueueBoxMetrics } from '../../engine/metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { QUEUEBOX_RESOLVED_OPTIONS } from '../../shared/queuebox.constants.js';
import { intakeInternalError, intakeRawBodyMissing, intakeUnknownSource } from '../../shared/queuebox.messages.js';
import { errorText } from '../../shared/errors/error-text.js';
import { InboxService } from './inbox.service.js';
import { INTAKE_BODY, type IntakeBodyCarrier } from './intake-body.js';
import { readIntakeRequest } from './intake-request.js';
import { intakeSourcesLine } from './intake-sources-line.js';
import { SourceLabels } from '../../engine/metrics/source-labels.js';

/** The parts of an HTTP request the intake reads. */
interface IntakeHttpRequest extends IntakeBodyCarrier {
  /** Set by Nest when the application was created with `rawBody: true` (platforms other than Express). */
  rawBody?: Buffer;
}

/** The part of an HTTP response the intake writes (Express `res` or Fastify `reply`). */
interface IntakeResponse {
  status(code: number): unknown;
}

interface IntakeAnswer {
  status: 'accepted' | 'duplicate' | 'rejected';
  id?: string;
  error?: string;
}

/**
 * HTTP intake of the inbox: `POST <path>/:source` with a JSON body, so that a QueueBox outbox's
 * HTTP destination (or any Standard Webhooks sender) can point here. The idempotency key is the
 * `webhook-id` header, the aggregate the `X-QueueBox-Key` header; a signed source checks both
 * signatures over the raw bytes (see `readIntakeRequest`). Answers 202 for a new message and
 * 200 for a duplicate (the sender stops retrying either way); 400, 401, 404, 413 or 415 refuse a
 * request for good; 500 means the message could not be stored now (the database failed) and
 * the sender should retry. A refused or failed request stores nothing. A 404 says "unknown
 * source" and no more: the caller may be anyone, and the declared sources are not theirs to list.
 * @publicApi
 */
@Controller()
export class InboxIntakeController implements OnModuleInit {
  private readonly logger = new Logger(InboxIntakeController.name);

  constructor(
    private readonly inbox: InboxService,
    private readonly metrics: QueueBoxMetrics,
    private readonly labels: SourceLabels,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
  ) {}

  /** One line at start-up: the sources the intake accepts, and which of them are unsigned. */
  onModuleInit(): void {
    this.logger.log(intakeSourcesLine(this.options.inbox.sources ?? new Map()));
  }

  @Post(':source')
  async receive(
    @Param('source') source: string,
    @Headers() headers: Record<string, string | string[] | undefined>,
    @Req() request: IntakeHttpRequest,
    @Res({ passthrough: true }) response: IntakeResponse,
  ): Promise<IntakeAnswer> {
    const label = this.labels.of(source);
    const { sources, signatureToleranceSeconds } = this.options.inbox;
    // On Express the body reader answered this already, before reading the body (IntakeBodyReader).
    if (sources && !sources.has(source))
      return this.refuse(response, label, HttpStatus.NOT_FOUND, intakeUnknownSource());
    const body = request[INTAKE_BODY]?.kind === 'read' ? request[INTAKE_BODY].bytes : request.rawBody;
    if (!body) {
      this.logger.error(intakeRawBodyMissing());
      return this.fail(response, label);
    }
    const verdict = readIntakeRequest({
      source,
      headers,
      body,
      secrets: sources?.get(source)?.secrets,
      nowSeconds: Math.floor(Date.now() / 1000),
      toleranceSeconds: signatureToleranceSeconds,
    });
    if (!verdict.ok) return this.refuse(response, label, verdict.status, verdict.error);
    try {
      const receipt = await this.inbox.receive(verdict.message, { serializedPayload: verdict.payload });
      response.status(receipt.status === 'accepted' ? HttpStatus.ACCEPTED : HttpStatus.OK);
      return receipt;
    } catch (error) {
      // receive() counted its own refusals already.
      if (error instanceof PayloadTooLargeError) return answer(response, HttpStatus.PAYLOAD_TOO_LARGE, error.message);
      if (error instanceof UnknownSourceError) return answer(response, HttpStatus.NOT_FOUND, intakeUnknownSource());
      if (error instanceof InvalidMessageError) return answer(response, HttpStatus.BAD_REQUEST, error.message);
      // A database failure: never let it reach Nest's exception log, which would print the
      // statement's parameters (the payload); the sender retries.
      this.logger.error('inbox intake could not store a message; answered 500 so that the sender retries', {
        source: label,
        error: errorText(error),
      });
      return this.fail(response, label);
    }
  }

  private refuse(response: IntakeResponse, label: string, status: HttpStatus, error: string): IntakeAnswer {
    this.metrics.inboxReceived(label, 'rejected');
    return answer(response, status, error);
  }

  private fail(response: IntakeResponse, label: string): IntakeAnswer {
    this.metrics.inboxReceived(label, 'failed');
    return answer(response, HttpStatus.INTERNAL_SERVER_ERROR, intakeInternalError());
  }
}

function answer(response: IntakeResponse, status: HttpStatus, error: string): IntakeAnswer {
  response.status(status);
  return { status: 'rejected', error };
}
