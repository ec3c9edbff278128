import { Controller, Headers, HttpStatus, Inject, Logger, Param, Post, Req, Res } from '@nestjs/common';
import { InvalidMessageError } from '../errors/invalid-message.error.js';
import { PayloadTooLargeError } from '../errors/payload-too-large.error.js';
import { UnknownSourceError } from '../errors/unknown-source.error.js';
import { QueueBoxMetrics } from '../metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../options/resolved-options.interface.js';
import { verifyMessageSignature } from '../publishers/message-signature.js';
import { MESSAGE_ID_HEADER, MESSAGE_KEY_HEADER, QUEUEBOX_RESOLVED_OPTIONS, SIGNATURE_HEADER } from '../queuebox.constants.js';
import { InboxService } from './inbox.service.js';
import { SourceLabels } from './source-labels.js';
import { MAX_INBOX_KEY_LENGTH } from './validate-inbox-message.js';

/** The parts of an HTTP request the intake reads (Express or Fastify). */
interface IntakeRequest {
  /** Set by Nest when the application was created with `rawBody: true`. */
  rawBody?: Buffer;
  body?: unknown;
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

/** Trace context headers kept with a received message. */
const KEPT_HEADERS = ['traceparent', 'tracestate'] as const;

/**
 * HTTP intake of the inbox: `POST <path>/:source` with a JSON body. The idempotency key is the
 * `X-Message-Id` header, the aggregate the `X-QueueBox-Key` header, so a QueueBox outbox's HTTP
 * destination can point here. Answers 202 for a new message and 200 for a duplicate (the sender
 * stops retrying either way), 400 for a missing id or a body that is not JSON, 401 for a bad
 * signature, 404 for an undeclared source, 413 for an oversize body, 415 for a body that is not
 * JSON by its content type. A refused request writes nothing. Verifying signatures needs the raw
 * body: create the app with `{ rawBody: true }` (without it, a signed source answers 500 and logs
 * why).
 * @publicApi
 */
@Controller()
export class InboxIntakeController {
  private readonly logger = new Logger(InboxIntakeController.name);

  constructor(
    private readonly inbox: InboxService,
    private readonly metrics: QueueBoxMetrics,
    private readonly labels: SourceLabels,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
  ) {}

  @Post(':source')
  async receive(
    @Param('source') source: string,
    @Headers() headers: Record<string, string | undefined>,
    @Req() request: IntakeRequest,
    @Res({ passthrough: true }) response: IntakeResponse,
  ): Promise<IntakeAnswer> {
    const refuse = (status: HttpStatus, error: string): IntakeAnswer => {
      this.metrics.inboxReceived(this.labels.of(source), 'rejected');
      response.status(status);
      return { status: 'rejected', error };
    };
    const { sources, maxPayloadBytes, signatureToleranceSeconds } = this.options.inbox;
    if (sources && !sources.has(source)) return refuse(HttpStatus.NOT_FOUND, `unknown source "${source.slice(0, MAX_INBOX_KEY_LENGTH)}"`);
    const messageId = headers[MESSAGE_ID_HEADER.toLowerCase()];
    if (!messageId || messageId.length > MAX_INBOX_KEY_LENGTH) return refuse(HttpStatus.BAD_REQUEST, `${MESSAGE_ID_HEADER} header of 1 to ${MAX_INBOX_KEY_LENGTH} characters is required`);
    const body = rawBodyOf(request);
    if (body === undefined) return refuse(HttpStatus.UNSUPPORTED_MEDIA_TYPE, 'a JSON body (content-type: application/json) is required');
    if (Buffer.byteLength(body, 'utf8') > maxPayloadBytes) return refuse(HttpStatus.PAYLOAD_TOO_LARGE, `body over ${maxPayloadBytes} bytes`);

    const secret = sources?.get(source)?.secret;
    if (secret) {
      if (!request.rawBody) {
        this.logger.error({ message: 'cannot verify an inbox signature without the raw body: create the Nest application with { rawBody: true }', source });
        response.status(HttpStatus.INTERNAL_SERVER_ERROR);
        return { status: 'rejected', error: 'signature verification is not available' };
      }
      const check = verifyMessageSignature(secret, messageId, body, headers[SIGNATURE_HEADER.toLowerCase()], Math.floor(Date.now() / 1000), signatureToleranceSeconds);
      if (check !== 'ok') return refuse(HttpStatus.UNAUTHORIZED, `signature ${check}`);
    }
    if (!isJson(body)) return refuse(HttpStatus.BAD_REQUEST, 'body is not valid JSON');

    const kept = Object.fromEntries(KEPT_HEADERS.flatMap((name) => (headers[name] ? [[name, headers[name]!]] : [])));
    try {
      const receipt = await this.inbox.receive(
        { source, idempotencyKey: messageId, aggregateKey: headers[MESSAGE_KEY_HEADER.toLowerCase()] ?? null, payload: undefined, headers: kept },
        { serializedPayload: body },
      );
      response.status(receipt.status === 'accepted' ? HttpStatus.ACCEPTED : HttpStatus.OK);
      return receipt;
    } catch (error) {
      // receive() counted the rejection already.
      if (error instanceof PayloadTooLargeError) return answer(response, HttpStatus.PAYLOAD_TOO_LARGE, error);
      if (error instanceof UnknownSourceError) return answer(response, HttpStatus.NOT_FOUND, error);
      if (error instanceof InvalidMessageError) return answer(response, HttpStatus.BAD_REQUEST, error);
      throw error;
    }
  }
}

function answer(response: IntakeResponse, status: HttpStatus, error: Error): IntakeAnswer {
  response.status(status);
  return { status: 'rejected', error: error.message };
}

/** The body as received: the raw bytes when Nest kept them, else the parsed JSON re-serialized. */
function rawBodyOf(request: IntakeRequest): string | undefined {
  if (request.rawBody) return request.rawBody.toString('utf8');
  if (typeof request.body === 'string') return request.body;
  if (request.body !== undefined && request.body !== null && typeof request.body === 'object' && Object.keys(request.body).length > 0) {
    return JSON.stringify(request.body);
  }
  return undefined;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
