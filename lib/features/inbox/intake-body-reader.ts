import { HttpStatus, Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { QueueBoxMetrics } from '../../engine/metrics/queuebox-metrics.service.js';
import type { ResolvedQueueBoxOptions } from '../../config/options/resolved-options.interface.js';
import { QUEUEBOX_INTAKE_PATH, QUEUEBOX_RESOLVED_OPTIONS } from '../../shared/queuebox.constants.js';
import {
  intakeBodyTimedOut,
  intakeBodyTooLarge,
  intakeRouteNotFound,
  intakeUnknownSource,
  intakeUnsupportedPlatform,
} from '../../shared/queuebox.messages.js';
import { INTAKE_BODY, type IntakeBodyCarrier, readIntakeBody } from './intake-body.js';
import { checkIntakeHead } from './intake-request.js';
import { SourceLabels } from '../../engine/metrics/source-labels.js';

/** Names of the body parsers of Express (and so of Nest's defaults and `app.useBodyParser`). */
const BODY_PARSERS = new Set(['jsonParser', 'urlencodedParser', 'rawParser', 'textParser']);

/** The parts of Express's router the reader uses: the layer list Nest itself inspects. */
interface ExpressRouterLayer {
  name?: string;
  handle?: { name?: string };
  route?: { path?: string; methods?: Record<string, boolean> };
}
interface ExpressApp {
  router?: { stack?: ExpressRouterLayer[]; route(path: string): { post(handler: ExpressHandler): unknown } };
}
/** A request as Express hands it to a route handler: with the route's decoded parameters. */
type IntakeHttpRequest = IncomingMessage & IntakeBodyCarrier & { params?: { source?: string } };
type ExpressHandler = (request: IntakeHttpRequest, response: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * Gives the intake route a body reader of its own, ahead of the application's body parsers, so
 * that it answers before reading any of the body what the headers decide: a source not in
 * `inbox.sources` (404), a content type, an id or a signed source's signature headers that are
 * missing, malformed or expired (415, 400, 401). It then reads the body within
 * `inbox.bodyTimeoutMs` (408 when it does not arrive), accepts bodies up to
 * `inbox.maxPayloadBytes` whatever the global JSON parser's limit (100 KB by default), keeps the
 * raw bytes for the signature check, and answers an oversize body with its own 413. A body it
 * has read is finished, so the global parsers skip it.
 *
 * NOTE: Express runs middleware in the order of its router's layer list, and Nest adds its body
 * parsers before any module code runs. The reader is added once the routes exist (so that it
 * takes the intake's exact path, global prefix included) and then moved in front of the first
 * body parser. On another HTTP platform the platform's own body limit applies (logged).
 */
@Injectable()
export class IntakeBodyReader implements OnModuleInit {
  private readonly logger = new Logger(IntakeBodyReader.name);

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: QueueBoxMetrics,
    private readonly labels: SourceLabels,
    @Inject(QUEUEBOX_RESOLVED_OPTIONS) private readonly options: ResolvedQueueBoxOptions,
    @Inject(QUEUEBOX_INTAKE_PATH) private readonly intakePath: string,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return;
    if (adapter.getType() !== 'express') {
      this.logger.warn(intakeUnsupportedPlatform(adapter.getType(), this.options.inbox.maxPayloadBytes));
      return;
    }
    const router = (adapter.getInstance() as ExpressApp).router;
    const stack = router?.stack;
    const suffix = `/${this.intakePath.replace(/^\/+|\/+$/g, '')}/:source`;
    const intake = stack?.find((layer) => layer.route?.methods?.post && layer.route.path?.endsWith(suffix));
    if (!router || !stack || !intake?.route?.path) {
      this.logger.warn(intakeRouteNotFound(suffix));
      return;
    }
    router.route(intake.route.path).post((request, response, next) => void this.read(request, response, next));
    const reader = stack.pop()!;
    const firstParser = stack.findIndex((layer) => BODY_PARSERS.has(layer.name ?? layer.handle?.name ?? ''));
    stack.splice(firstParser >= 0 ? firstParser : 0, 0, reader);
  }

  private async read(
    request: IntakeHttpRequest,
    response: ServerResponse,
    next: (error?: unknown) => void,
  ): Promise<void> {
    // The source first: a caller that names no declared source gets its 404 before a byte of the
    // body is read, so that nobody can make the server buffer bodies for sources it does not have.
    const source = request.params?.source ?? lastPathSegment(request.url);
    const { sources, maxPayloadBytes: limit, bodyTimeoutMs, signatureToleranceSeconds } = this.options.inbox;
    if (source === undefined || (sources && !sources.has(source))) {
      this.refuse(request, response, HttpStatus.NOT_FOUND, intakeUnknownSource());
      return;
    }
    // Then what the headers alone decide (the content type, the id, a signed source's signature
    // headers): without credentials nobody can make the server wait for a body either.
    const head = checkIntakeHead({
      source,
      headers: request.headers,
      secrets: sources?.get(source)?.secrets,
      nowSeconds: Math.floor(Date.now() / 1000),
      toleranceSeconds: signatureToleranceSeconds,
    });
    if (!head.ok) {
      this.refuse(request, response, head.status, head.error);
      return;
    }
    let body;
    try {
      body = await readIntakeBody(request, limit, bodyTimeoutMs);
    } catch (error) {
      next(error);
      return;
    }
    if (body.kind === 'read') {
      request[INTAKE_BODY] = body;
      next();
      return;
    }
    if (body.kind === 'timed-out')
      this.refuse(request, response, HttpStatus.REQUEST_TIMEOUT, intakeBodyTimedOut(bodyTimeoutMs));
    else this.refuse(request, response, HttpStatus.PAYLOAD_TOO_LARGE, intakeBodyTooLarge(limit));
  }

  /**
   * Answered here: the unread rest of the body must not reach a body parser. The connection
   * closes after the answer instead of reading what is left.
   */
  private refuse(request: IntakeHttpRequest, response: ServerResponse, status: HttpStatus, error: string): void {
    this.metrics.inboxReceived(this.labels.of(request.params?.source ?? lastPathSegment(request.url)), 'rejected');
    const answer = JSON.stringify({ status: 'rejected', error });
    response.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      connection: 'close',
      'content-length': Buffer.byteLength(answer),
    });
    response.end(answer);
  }
}

/** The `:source` of an intake URL, or undefined when it cannot be decoded. */
function lastPathSegment(url: string | undefined): string | undefined {
  try {
    return decodeURIComponent(url?.split('?')[0].split('/').pop() ?? '');
  } catch {
    return undefined;
  }
}
