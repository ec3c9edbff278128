import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { PublishFailedError } from '../../lib/shared/errors/publish-failed.error.js';
import { resolveOptions } from '../../lib/config/options/resolve-options.js';
import { HttpPublisher } from '../../lib/features/publishers/http.publisher.js';

const message = { id: '1', messageId: 'm-1', destination: 'd', key: null, headers: {}, payload: '{}', attempt: 1 };

describe('HttpPublisher', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  async function serve(
    handler: Parameters<typeof createServer>[1],
    headers?: Record<string, string>,
  ): Promise<HttpPublisher> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    const destination = resolveOptions({
      destinations: { d: { type: 'http', url: `http://127.0.0.1:${address.port}/hook`, headers } },
    }).destinations.get('d');
    return new HttpPublisher(destination as never);
  }

  it('reads only the start of an error answer, however large, and keeps a short printable excerpt', async () => {
    const total = 100 * 1024 * 1024;
    let written = 0;
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const publisher = await serve((request, response) => {
      request.resume();
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.on('close', closed);
      const chunk = Buffer.from(`database exploded\u0000\n${'x'.repeat(64 * 1024)}`);
      const pump = (): void => {
        while (written < total && !response.destroyed) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    });
    const error = await publisher.publish(message, { signal: new AbortController().signal }).catch((e: unknown) => e);
    await connectionClosed;
    expect(error).toBeInstanceOf(PublishFailedError);
    expect((error as PublishFailedError).retryable).toBe(true);
    expect((error as Error).message).toMatch(/^destination "d" answered HTTP 500: database exploded x+…$/);
    expect((error as Error).message.length).toBeLessThan(300);
    // The server could only write what the socket buffers took before the publisher hung up.
    expect(written).toBeLessThan(total / 4);
  });

  it('sends the message id as X-Message-Id to an unsigned destination, and no Standard Webhooks headers', async () => {
    let seen: Record<string, unknown> = {};
    const publisher = await serve((request, response) => {
      seen = request.headers;
      request.resume();
      response.end();
    });
    await publisher.publish(
      { ...message, key: 'k', headers: { 'X-Trace': 'a' } },
      { signal: new AbortController().signal },
    );
    expect(seen).toMatchObject({
      'x-message-id': 'm-1',
      'x-queuebox-key': 'k',
      'x-trace': 'a',
      'content-type': 'application/json',
    });
    expect(seen['webhook-id']).toBeUndefined();
    expect(seen['x-queuebox-signature']).toBeUndefined();
  });

  it("sends the destination's own headers over a stored message's headers of the same name", async () => {
    let seen: Record<string, unknown> = {};
    const publisher = await serve(
      (request, response) => {
        seen = request.headers;
        request.resume();
        response.end();
      },
      { Authorization: 'Bearer destination', 'X-Api-Key': 'destination-key' },
    );
    // A row stored before the destination configured these headers (enqueue refuses them now).
    const headers = { authorization: 'Bearer message', 'x-api-key': 'message-key', 'X-Trace': 'a' };
    await publisher.publish({ ...message, headers }, { signal: new AbortController().signal });
    expect(seen).toMatchObject({ authorization: 'Bearer destination', 'x-api-key': 'destination-key', 'x-trace': 'a' });
  });
});
