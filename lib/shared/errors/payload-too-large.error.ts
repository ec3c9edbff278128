import { InvalidMessageError } from './invalid-message.error.js';

/** Thrown by `enqueue` when a serialized payload is larger than `outbox.maxPayloadBytes`. @publicApi */
export class PayloadTooLargeError extends InvalidMessageError {
  constructor(
    readonly sizeBytes: number,
    readonly limitBytes: number,
    message: string,
    index?: number,
  ) {
    super('payload', message, index, 'PAYLOAD_TOO_LARGE');
  }
}
