import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { DeadLetterNotFoundError } from '../../../shared/errors/dead-letter-not-found.error.js';
import { InvalidArgumentError } from '../../../shared/errors/invalid-argument.error.js';
import { errorText } from '../../../shared/errors/error-text.js';
import { ADMIN_REQUEST_HEADER } from './admin-http.constants.js';
import { AdminHeaderMissingException } from './admin-mutation.guard.js';

/** The JSON body of every admin error: a stable code, the field at fault when there is one, a sentence. */
export interface AdminErrorBody {
  error: string;
  field?: string;
  message: string;
}

const CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/**
 * Turns what an admin request failed with into typed JSON: 400 with the field for a bad input, 404
 * for a dead letter that is gone, 401/403 from the guards (403 `ADMIN_HEADER_REQUIRED` naming
 * the header a replay or discard lacks), 415 for a mutation that is not JSON, 500 (details in
 * the server log only) for anything else.
 */
@Catch()
export class AdminExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('QueueBoxAdminApi');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<unknown>();
    const { status, body } = this.answer(exception);
    const adapter = this.adapterHost.httpAdapter;
    if (status === HttpStatus.UNAUTHORIZED)
      adapter.setHeader(response, 'WWW-Authenticate', 'Bearer realm="queuebox-admin"');
    adapter.setHeader(response, 'Cache-Control', 'no-store');
    adapter.reply(response, body, status);
  }

  private answer(exception: unknown): { status: number; body: AdminErrorBody } {
    if (exception instanceof InvalidArgumentError)
      return { status: 400, body: { error: exception.code, field: exception.field, message: exception.message } };
    if (exception instanceof DeadLetterNotFoundError)
      return { status: 404, body: { error: exception.code, field: exception.field, message: exception.message } };
    if (exception instanceof AdminHeaderMissingException)
      return {
        status: 403,
        body: { error: 'ADMIN_HEADER_REQUIRED', field: ADMIN_REQUEST_HEADER, message: exception.message },
      };
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status < 500) return { status, body: { error: CODES[status] ?? 'HTTP_ERROR', message: exception.message } };
    }
    this.logger.error('admin request failed', { error: errorText(exception) });
    return { status: 500, body: { error: 'INTERNAL', message: 'The admin request failed; see the server log.' } };
  }
}
