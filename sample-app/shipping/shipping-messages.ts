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
 * Parses a payload's JSON text and checks its type and string fields. Throws on anything else:
 * in the relay or a pull worker, that fails the attempt (retried with backoff, then `dead`).
 */
export function parseMessage<T extends { type: string }>(json: string, type: T['type'], fields: readonly (keyof T & string)[]): T {
  const value: unknown = JSON.parse(json);
  if (value === null || typeof value !== 'object' || (value as { type?: unknown }).type !== type) {
    throw new Error(`expected a "${type}" message`);
  }
  for (const field of fields) {
    if (typeof (value as Record<string, unknown>)[field] !== 'string') throw new Error(`"${type}" message without a string ${field}`);
  }
  return value as T;
}
