import { HttpStatus } from '@nestjs/common';
import type { InboxMessageInput } from '../interfaces/inbox-message.interface.js';
import { MESSAGE_ID_HEADER, MESSAGE_KEY_HEADER, SIGNATURE_HEADER, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from '../queuebox.constants.js';
import {
  intakeBadContentType,
  intakeBadEncoding,
  intakeBadHeader,
  intakeEmptyBody,
  intakeInvalidJson,
  intakeInvalidUtf8,
  intakeKeyNotSigned,
  intakeMissingId,
  intakeSignatureRefused,
} from '../queuebox.messages.js';
import { coveredHeadersText, hasCoveredHeaders } from '../signatures/covered-headers.js';
import { checkWebhookSignatures } from '../signatures/webhook-signature.js';
import { keyProblem } from '../validation/keys.js';

/** Header names as Node gives them: lower case. */
const ID = WEBHOOK_ID_HEADER;
const LEGACY_ID = MESSAGE_ID_HEADER.toLowerCase();
const KEY = MESSAGE_KEY_HEADER.toLowerCase();
const COVERING_SIGNATURE = SIGNATURE_HEADER.toLowerCase();
/** Trace context headers kept with a received message (when the signature covers them). */
const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** What the intake knows of one request before it stores anything. */
export interface IntakeRequest {
  source: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body's bytes exactly as sent. */
  body: Buffer;
  /** The keys of the source's secrets; undefined for an unsigned source. */
  secrets?: readonly Buffer[];
  nowSeconds: number;
  toleranceSeconds: number;
}

/** The message to store, or why the request is refused (nothing is stored then). */
export type IntakeVerdict = { ok: true; message: InboxMessageInput; payload: string } | { ok: false; status: HttpStatus; error: string };

/**
 * Checks one intake request and turns it into the message to store. Everything stored comes
 * from the request's bytes and from headers a signature covers: on a signed source the Standard
 * Webhooks signature (`webhook-signature`) covers the id, the timestamp and the raw body, and
 * `X-QueueBox-Signature` covers the ordering key and the trace context. A key without that second
 * signature is refused; uncovered trace headers are not kept. The id is `webhook-id` (on an
 * unsigned source `X-Message-Id` too, which unsigned QueueBox destinations send).
 */
export function readIntakeRequest(request: IntakeRequest): IntakeVerdict {
  const headers = single(request.headers);
  if (!isJsonContentType(headers['content-type'])) return refuse(HttpStatus.UNSUPPORTED_MEDIA_TYPE, intakeBadContentType());
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return refuse(HttpStatus.UNSUPPORTED_MEDIA_TYPE, intakeBadEncoding());
  if (request.body.length === 0) return refuse(HttpStatus.BAD_REQUEST, intakeEmptyBody());

  const signed = request.secrets !== undefined;
  const id = headers[ID] ?? (signed ? undefined : headers[LEGACY_ID]);
  if (id === undefined) return refuse(HttpStatus.BAD_REQUEST, intakeMissingId(signed));
  const idProblem = keyProblem(id);
  if (idProblem) return refuse(HttpStatus.BAD_REQUEST, intakeBadHeader(headers[ID] !== undefined ? ID : MESSAGE_ID_HEADER, idProblem));

  let kept = headers;
  if (request.secrets) {
    const verdict = checkSignatures(request.secrets, id, headers, request);
    if (!verdict.ok) return verdict;
    kept = verdict.kept;
  }

  let text: string;
  try {
    text = UTF8.decode(request.body);
  } catch {
    return refuse(HttpStatus.BAD_REQUEST, intakeInvalidUtf8());
  }
  try {
    JSON.parse(text);
  } catch {
    return refuse(HttpStatus.BAD_REQUEST, intakeInvalidJson());
  }
  const key = kept[KEY];
  const keyFault = key === undefined ? undefined : keyProblem(key);
  if (keyFault) return refuse(HttpStatus.BAD_REQUEST, intakeBadHeader(MESSAGE_KEY_HEADER, keyFault));
  const trace = Object.fromEntries(TRACE_HEADERS.flatMap((name) => (kept[name] === undefined ? [] : [[name, kept[name]!]])));
  return { ok: true, message: { source: request.source, idempotencyKey: id, key: key ?? null, payload: undefined, headers: trace }, payload: text };
}

/** Both signatures of a signed source; returns the headers that may be kept. */
function checkSignatures(
  keys: readonly Buffer[],
  id: string,
  headers: Record<string, string | undefined>,
  request: IntakeRequest,
): { ok: true; kept: Record<string, string | undefined> } | Extract<IntakeVerdict, { ok: false }> {
  const check = (signature: string | undefined, content: Buffer | string) =>
    checkWebhookSignatures(keys, id, headers[WEBHOOK_TIMESTAMP_HEADER], signature, content, request.nowSeconds, request.toleranceSeconds);
  const body = check(headers[WEBHOOK_SIGNATURE_HEADER], request.body);
  if (body !== 'ok') return refuse(HttpStatus.UNAUTHORIZED, intakeSignatureRefused(WEBHOOK_SIGNATURE_HEADER, body));
  if (!hasCoveredHeaders(headers)) return { ok: true, kept: headers };
  if (headers[COVERING_SIGNATURE] === undefined) {
    if (headers[KEY] !== undefined) return refuse(HttpStatus.UNAUTHORIZED, intakeKeyNotSigned());
    // A plain Standard Webhooks sender (an instrumented HTTP client, say) may add trace headers
    // no signature covers: the message is stored without them.
    const { traceparent: _traceparent, tracestate: _tracestate, ...rest } = headers;
    return { ok: true, kept: rest };
  }
  const covered = check(headers[COVERING_SIGNATURE], coveredHeadersText(headers));
  if (covered !== 'ok') return refuse(HttpStatus.UNAUTHORIZED, intakeSignatureRefused(SIGNATURE_HEADER, covered));
  return { ok: true, kept: headers };
}

/** `application/json`, with no charset or a UTF-8 one. */
function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const [type, ...parameters] = value.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return parameters.every((parameter) => !parameter.startsWith('charset=') || /^charset="?utf-8"?$/.test(parameter));
}

/** Repeated headers as one value (Node joins most of them already). */
function single(headers: IntakeRequest['headers']): Record<string, string | undefined> {
  const result: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) result[name] = Array.isArray(value) ? value.join(', ') : value;
  return result;
}

function refuse(status: HttpStatus, error: string): Extract<IntakeVerdict, { ok: false }> {
  return { ok: false, status, error };
}
