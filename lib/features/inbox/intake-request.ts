import { HttpStatus } from '@nestjs/common';
import type { InboxMessageInput } from '../../shared/interfaces/inbox-message.interface.js';
import {
  MESSAGE_ID_HEADER,
  MESSAGE_KEY_HEADER,
  SIGNATURE_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from '../../shared/queuebox.constants.js';
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
} from '../../shared/queuebox.messages.js';
import { coveredHeadersText, hasCoveredHeaders } from '../../shared/signatures/covered-headers.js';
import { checkWebhookSignatures, readSignatureHeaders } from '../../shared/signatures/webhook-signature.js';
import { keyProblem } from '../../config/validation/keys.js';

/** Header names as Node gives them: lower case. */
const ID = WEBHOOK_ID_HEADER;
const LEGACY_ID = MESSAGE_ID_HEADER.toLowerCase();
const KEY = MESSAGE_KEY_HEADER.toLowerCase();
const COVERING_SIGNATURE = SIGNATURE_HEADER.toLowerCase();
/** Trace context headers kept with a received message (when the signature covers them). */
const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** What the intake knows of a request once its headers have arrived, before its body. */
export interface IntakeHead {
  source: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The keys of the source's secrets; undefined for an unsigned source. */
  secrets?: readonly Buffer[];
  nowSeconds: number;
  toleranceSeconds: number;
}

/** What the intake knows of one request before it stores anything. */
export interface IntakeRequest extends IntakeHead {
  /** The body's bytes exactly as sent. */
  body: Buffer;
}

/** Why a request is refused (nothing is stored then). */
export type IntakeRefusal = { ok: false; status: HttpStatus; error: string };

/** The message to store, or why the request is refused. */
export type IntakeVerdict = { ok: true; message: InboxMessageInput; payload: string } | IntakeRefusal;

/** A head that may be followed by its body: its id, and its headers as single values. */
type AcceptedHead = { ok: true; id: string; headers: Record<string, string | undefined> };

/**
 * The checks that need no body (content type, id, signature headers' form and age), run before the
 * body is read so a hopeless request is not buffered, and again by `readIntakeRequest`.
 */
export function checkIntakeHead(head: IntakeHead): AcceptedHead | IntakeRefusal {
  const headers = single(head.headers);
  if (!isJsonContentType(headers['content-type']))
    return refuse(HttpStatus.UNSUPPORTED_MEDIA_TYPE, intakeBadContentType());
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity')
    return refuse(HttpStatus.UNSUPPORTED_MEDIA_TYPE, intakeBadEncoding());

  const signed = head.secrets !== undefined;
  const id = headers[ID] ?? (signed ? undefined : headers[LEGACY_ID]);
  if (id === undefined) return refuse(HttpStatus.BAD_REQUEST, intakeMissingId(signed));
  const idProblem = keyProblem(id);
  if (idProblem)
    return refuse(
      HttpStatus.BAD_REQUEST,
      intakeBadHeader(headers[ID] !== undefined ? ID : MESSAGE_ID_HEADER, idProblem),
    );
  if (!signed) return { ok: true, id, headers };

  const read = (signature: string | undefined) =>
    readSignatureHeaders(headers[WEBHOOK_TIMESTAMP_HEADER], signature, head.nowSeconds, head.toleranceSeconds);
  const body = read(headers[WEBHOOK_SIGNATURE_HEADER]);
  if ('problem' in body)
    return refuse(HttpStatus.UNAUTHORIZED, intakeSignatureRefused(WEBHOOK_SIGNATURE_HEADER, body.problem));
  if (!hasCoveredHeaders(headers)) return { ok: true, id, headers };
  if (headers[COVERING_SIGNATURE] === undefined) {
    return headers[KEY] === undefined
      ? { ok: true, id, headers }
      : refuse(HttpStatus.UNAUTHORIZED, intakeKeyNotSigned());
  }
  const covering = read(headers[COVERING_SIGNATURE]);
  if ('problem' in covering)
    return refuse(HttpStatus.UNAUTHORIZED, intakeSignatureRefused(SIGNATURE_HEADER, covering.problem));
  return { ok: true, id, headers };
}

/**
 * Checks one intake request and turns it into the message to store. Everything stored comes from the
 * bytes and from signed headers: `webhook-signature` covers id, timestamp and body;
 * `X-QueueBox-Signature` covers the ordering key and trace context (a key without it is refused,
 * uncovered trace headers are dropped). The id is `webhook-id` (unsigned: `X-Message-Id` too).
 */
export function readIntakeRequest(request: IntakeRequest): IntakeVerdict {
  const head = checkIntakeHead(request);
  if (!head.ok) return head;
  const { id, headers } = head;
  if (request.body.length === 0) return refuse(HttpStatus.BAD_REQUEST, intakeEmptyBody());

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
  const trace = Object.fromEntries(
    TRACE_HEADERS.flatMap((name) => (kept[name] === undefined ? [] : [[name, kept[name]!]])),
  );
  return {
    ok: true,
    message: { source: request.source, idempotencyKey: id, key: key ?? null, payload: undefined, headers: trace },
    payload: text,
  };
}

/** Both signatures of a signed source; returns the headers that may be kept. */
function checkSignatures(
  keys: readonly Buffer[],
  id: string,
  headers: Record<string, string | undefined>,
  request: IntakeRequest,
): { ok: true; kept: Record<string, string | undefined> } | IntakeRefusal {
  const check = (signature: string | undefined, content: Buffer | string) =>
    checkWebhookSignatures(
      keys,
      id,
      headers[WEBHOOK_TIMESTAMP_HEADER],
      signature,
      content,
      request.nowSeconds,
      request.toleranceSeconds,
    );
  const body = check(headers[WEBHOOK_SIGNATURE_HEADER], request.body);
  if (body !== 'ok') return refuse(HttpStatus.UNAUTHORIZED, intakeSignatureRefused(WEBHOOK_SIGNATURE_HEADER, body));
  if (!hasCoveredHeaders(headers)) return { ok: true, kept: headers };
  if (headers[COVERING_SIGNATURE] === undefined) {
    // A plain Standard Webhooks sender (an instrumented HTTP client, say) may add trace headers
    // no signature covers: the message is stored without them (a key was refused already).
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

function refuse(status: HttpStatus, error: string): IntakeRefusal {
  return { ok: false, status, error };
}
