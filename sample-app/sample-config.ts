import { randomBytes } from 'node:crypto';

/** What the sample needs before its modules are built: where the database is, where each service listens. */
export interface SampleConfig {
  /** A PostgreSQL connection URL: `DATABASE_URL`, or the embedded server's. */
  databaseUrl: string;
  /** The HTTP port of the orders service (`PORT`, default 3000), which also hosts the billing receiver. */
  ordersPort: number;
  /** The HTTP port of the shipping service (`SHIPPING_PORT`, default 3001), which also hosts the warehouse stand-in. */
  shippingPort: number;
  /** The interface both services listen on (`HOST`, default 127.0.0.1: nothing outside this machine can reach them). */
  host: string;
  /** Standard Webhooks secret of the shipping intake's `orders` source, shared with the orders service's `shipping` destination. */
  ordersSecret: string;
  /** Standard Webhooks secret of the shipping intake's `warehouse` source, shared with the warehouse stand-in. */
  warehouseSecret: string;
  /** Standard Webhooks secret of the shipping relay's `warehouse` destination: the stand-in answers only requests it signed. */
  warehouseRequestSecret: string;
  /** The environment variables that were unset, so their secrets were generated at start-up. */
  generatedSecrets: string[];
}

/**
 * Reads the ports and secrets from the environment: `HOST`, `PORT`, `SHIPPING_PORT`,
 * `SHIPPING_ORDERS_SECRET`, `SHIPPING_WAREHOUSE_SECRET`, `WAREHOUSE_REQUEST_SECRET` (secrets are
 * `whsec_` followed by random bytes in base64; unset ones are generated for the run).
 */
export function readSampleConfig(env: NodeJS.ProcessEnv): Omit<SampleConfig, 'databaseUrl'> {
  const ordersPort = readPort(env.PORT, 'PORT', 3000);
  const shippingPort = readPort(env.SHIPPING_PORT, 'SHIPPING_PORT', 3001);
  if (ordersPort === shippingPort)
    throw new Error(`PORT and SHIPPING_PORT are both ${ordersPort}; the two services need different ports.`);
  const generatedSecrets: string[] = [];
  const secret = (name: string): string => {
    const value = env[name];
    if (value) return value;
    generatedSecrets.push(name);
    return `whsec_${randomBytes(32).toString('base64')}`;
  };
  return {
    host: env.HOST || '127.0.0.1',
    ordersPort,
    shippingPort,
    ordersSecret: secret('SHIPPING_ORDERS_SECRET'),
    warehouseSecret: secret('SHIPPING_WAREHOUSE_SECRET'),
    warehouseRequestSecret: secret('WAREHOUSE_REQUEST_SECRET'),
    generatedSecrets,
  };
}

/** Reads a port; one the destinations can point at, so never 0. */
export function readPort(value: string | undefined, name = 'PORT', fallback = 3000): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`${name} is ${JSON.stringify(value)}; it must be an integer from 1 to 65535.`);
  }
  return port;
}

/** The base URL one service reaches another on: its listening host, or loopback when that is a wildcard. */
export function localUrl(config: Pick<SampleConfig, 'host'>, port: number): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
