/** The messages of the shipping flow, as JSON payloads. */

/** Orders → shipping intake (source `orders`): what the orders service publishes. */
export interface OrderPlaced {
  type: 'order.placed';
  orderId: string;
  customerId: string;
  amount: number;
  placedAt: string;
}

/** Shipping relay → warehouse: what the relay's transform makes of an `order.placed`. */
export interface ParcelRequested {
  type: 'parcel.requested';
  orderId: string;
  customerId: string;
}

/** Warehouse → shipping intake (source `warehouse`): the report the pull worker records. */
export interface ParcelPacked {
  type: 'parcel.packed';
  orderId: string;
  customerId: string;
  parcelId: string;
}

/**
 * Checks a received payload's type and string fields: QueueBox parses the JSON, but what a sender
 * put in it is the receiver's to check. Throws on anything else: in the relay or a pull worker,
 * that fails the attempt (retried with backoff, then `dead`).
 */
export function checkMessage<T extends { type: string }>(
  value: unknown,
  type: T['type'],
  fields: readonly (keyof T & string)[],
): T {
  if (value === null || typeof value !== 'object' || (value as { type?: unknown }).type !== type) {
    throw new Error(`expected a "${type}" message`);
  }
  for (const field of fields) {
    if (typeof (value as Record<string, unknown>)[field] !== 'string')
      throw new Error(`"${type}" message without a string ${field}`);
  }
  return value as T;
}
