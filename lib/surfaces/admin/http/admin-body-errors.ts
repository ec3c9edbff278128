import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { adminBodyErrorsNotInstalled, adminJsonOnly, invalidAdminBody } from '../../../shared/queuebox.messages.js';
import type { AdminErrorBody } from './admin-exception.filter.js';
import { QUEUEBOX_ADMIN_PATH } from './admin-http.constants.js';
import { isAdminJson } from './admin-mutation.guard.js';

/** An error of Express's body parsers (body-parser, through http-errors): its kind. */
interface BodyParserError {
  type?: string;
}
type ErrorHandler = (
  error: unknown,
  request: IncomingMessage,
  response: ServerResponse,
  next: (error?: unknown) => void,
) => void;
interface ExpressApp {
  router?: { stack?: { route?: { path?: string } }[] };
  use(path: string, handler: ErrorHandler): unknown;
}

/** The route of a replay, from which the API's full prefix (global prefix included) is read. */
const REPLAY_ROUTE = '/dead/:table/replay';

/**
 * Gives the admin API's answer to a body the application's parsers refused. Express's JSON parser
 * reads a replay's or discard's body before any guard or filter of the module runs, and a body
 * that is not JSON, a top-level value that is not an object or array (`"text"`, `42`, `null`), or a
 * charset other than UTF-8 fails there: Nest would answer with its generic error shape (or a 500
 * for the charset). This handler, added to the API's path after the parsers, answers those as the
 * admin's typed errors instead: 400 `INVALID_ARGUMENT` on `body`, 415 `UNSUPPORTED_MEDIA_TYPE`,
 * 413 `PAYLOAD_TOO_LARGE`. Other errors go on to the application's handlers. Express only.
 */
@Injectable()
export class AdminBodyErrors implements OnModuleInit {
  private readonly logger = new Logger('QueueBoxAdminApi');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(QUEUEBOX_ADMIN_PATH) private readonly adminPath: string,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter || adapter.getType() !== 'express') return;
    const app = adapter.getInstance() as ExpressApp;
    const suffix = `/${this.adminPath}/api${REPLAY_ROUTE}`;
    const replay = app.router?.stack?.find((layer) => layer.route?.path?.endsWith(suffix));
    if (!replay?.route?.path) {
      this.logger.warn(adminBodyErrorsNotInstalled(suffix));
      return;
    }
    // Added after the routes: Express passes a parser's error over every route to the first error
    // handler, and Nest adds its own only once the modules have initialized.
    app.use(replay.route.path.slice(0, -REPLAY_ROUTE.length), (error, request, response, next) => {
      const answer = answerFor(error as BodyParserError, request);
      if (!answer) {
        next(error);
        return;
      }
      const text = JSON.stringify(answer.body);
      response.writeHead(answer.status, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
    });
  }
}

/**
 * The answer to a parser's error, or undefined for an error that is not about the body. The
 * content type is judged first, as AdminMutationGuard would (a UTF-16 body that the parser decoded
 * and could not parse is still not UTF-8 JSON), then the body.
 */
function answerFor(
  error: BodyParserError,
  request: IncomingMessage,
): { status: number; body: AdminErrorBody } | undefined {
  const type = error?.type;
  if (type === 'entity.too.large')
    return { status: 413, body: { error: 'PAYLOAD_TOO_LARGE', message: invalidAdminBody() } };
  if (type !== 'entity.parse.failed' && type !== 'charset.unsupported' && type !== 'encoding.unsupported')
    return undefined;
  if (type !== 'entity.parse.failed' || !isAdminJson(request.headers['content-type'])) {
    return { status: 415, body: { error: 'UNSUPPORTED_MEDIA_TYPE', message: adminJsonOnly() } };
  }
  return { status: 400, body: { error: 'INVALID_ARGUMENT', field: 'body', message: invalidAdminBody() } };
}
