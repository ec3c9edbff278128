/** The shipping service's schema: QueueBox's tables and its own `shipments` table live there. */
export const SHIPPING_SCHEMA = 'shipping';

/** The @nestjs/typeorm name of the shipping service's DataSource. */
export const SHIPPING_DATA_SOURCE = 'shipping';

/** The shipping intake's sources: `orders` is relayed to the warehouse, `warehouse` is pulled. */
export const ORDERS_SOURCE = 'orders';
export const WAREHOUSE_SOURCE = 'warehouse';
