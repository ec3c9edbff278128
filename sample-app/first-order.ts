import type { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { localUrl, type SampleConfig } from './sample-config.js';
import type { Shipment } from './shipping/shipments.controller.js';

/** The order the sample places by itself, as the curl hint would. */
export const FIRST_ORDER = { customerId: 'c1', amount: 12 } as const;

/** How often the sample looks for the first order's shipment: a demo's pace, not a test's. */
const CHECK_EVERY_MS = 100;

/**
 * Places one order through the orders service's API, exactly as a user's curl would, then waits
 * until the shipping service has recorded its shipment: the whole path, once, while each hop logs
 * its own line. Throws when the order is refused or its shipment has not arrived within `timeoutMs`.
 */
export async function placeFirstOrder(
  config: SampleConfig,
  logger: Logger,
  timeoutMs = 60_000,
): Promise<{ orderId: string; ms: number }> {
  const orders = localUrl(config, config.ordersPort);
  const shipping = localUrl(config, config.shippingPort);
  const started = performance.now();
  logger.log(`Placing a first order: POST ${orders}/orders ${JSON.stringify(FIRST_ORDER)}`);
  const response = await fetch(`${orders}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(FIRST_ORDER),
  });
  if (response.status !== 201)
    throw new Error(`POST /orders answered HTTP ${response.status}: ${await response.text()}`);
  const { orderId } = (await response.json()) as { orderId: string };
  for (;;) {
    const shipments = (await (await fetch(`${shipping}/shipments`)).json()) as Shipment[];
    if (shipments.some((shipment) => shipment.order_id === orderId)) break;
    if (performance.now() - started > timeoutMs)
      throw new Error(`the shipment of order ${orderId} was not recorded within ${timeoutMs} ms`);
    await sleep(CHECK_EVERY_MS);
  }
  const ms = Math.round(performance.now() - started);
  logger.log(`First order ${orderId} went through every hop: its shipment is recorded (${ms} ms after it was placed)`);
  return { orderId, ms };
}
