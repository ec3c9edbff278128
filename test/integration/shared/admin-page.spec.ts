import { Injectable } from '@nestjs/common';
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OutboxMessage,
  type OutboxPublisher,
  PublishFailedError,
  QueueBoxAdminModule,
} from '../../../lib/index.js';
import { createTestSchema, databaseConfigured, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

/*
 * The admin page in a real browser: Debian's chromium, driven by playwright-core with the system
 * executable (no browser download). Outside CI, a machine without chromium skips this file and
 * says why; in CI (CI=true) a missing chromium fails it.
 */

const CHROMIUM = process.env.QUEUEBOX_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
const MISSING = `no chromium at ${CHROMIUM} (apt-get install -y chromium, or set QUEUEBOX_CHROMIUM)`;
if (!hasChromium && !inCi) console.warn(`admin page browser test skipped: ${MISSING}`);

const TOKEN = 'page-test-token-0123456789abcdefghijklmnopq';

/** A destination that is down: every publish fails and is retried later. */
@Injectable()
class DownPublisher implements OutboxPublisher {
  async publish(message: OutboxMessage): Promise<void> {
    throw new PublishFailedError(`HTTP 503 from billing for ${message.destination}`, { retryable: true });
  }
}

describe.skipIf(!databaseConfigured || (!hasChromium && !inCi))('admin page in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  let schema: string;

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`CI requires the browser test to run: ${MISSING}`);
    schema = await createTestSchema();
    app = await startQueueBoxApp(
      schema,
      {
        destinations: {
          sink: { type: 'custom', publisher: RecordingPublisher },
          billing: { type: 'custom', publisher: DownPublisher },
        },
        outbox: { pollIntervalMs: 50, maxAttempts: 50, backoff: { initialDelayMs: 60_000, maxDelayMs: 600_000 } },
      },
      {
        imports: [QueueBoxAdminModule.forRoot({ bearerToken: TOKEN })],
        providers: [RecordingPublisher, DownPublisher],
        listen: true,
      },
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('shows a dead letter, replays it after confirmation, and shows it delivered', { timeout: 60_000 }, async () => {
    const database = testDatabase();
    const dead = await database.insertOutboxRow(app.dataSource, schema, {
      destination: 'sink',
      key: 'order-17',
      state: 'dead',
      attempts: 5,
      lastError: 'HTTP 503 Service Unavailable',
      finishedAgoMs: 600_000,
    });
    await database.insertOutboxRow(app.dataSource, schema, {
      destination: 'sink',
      key: 'order-18',
      state: 'dead',
      attempts: 1,
      lastError: 'HTTP 400 Bad Request: missing field "total"',
      finishedAgoMs: 60_000,
    });
    // A destination that is down: its rows retry and hold their keys back (blocked keys, backlog).
    await database.seedOutbox(app.dataSource, schema, { key: 'invoice-9', count: 3, destination: 'billing' });
    await waitFor(
      async () =>
        (await database.outboxRows(app.dataSource, schema)).some(
          (row) => row.destination === 'billing' && row.attempts > 0,
        ),
      10_000,
      'billing failing',
    );

    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // The 401s of the first, token-less connect are expected; script errors are not.
    page.on(
      'console',
      (entry) =>
        entry.type() === 'error' && !entry.text().startsWith('Failed to load resource') && errors.push(entry.text()),
    );
    await page.goto(`${app.url}/queuebox/admin`);

    // Without the token the API says so; the page shows it.
    await page.click('#connect');
    await page.locator('#status', { hasText: 'missing or wrong' }).waitFor();

    await page.fill('#token', TOKEN);
    await page.click('#connect');
    const row = page.locator('#dead tr', { hasText: 'HTTP 503 Service Unavailable' });
    await row.waitFor();
    await page.locator('#blocked tr', { hasText: 'invoice-9' }).waitFor();
    await page.locator('#loops tr', { hasText: 'outbox' }).waitFor();
    expect(page.url()).not.toContain(TOKEN);
    expect(await page.inputValue('#token')).toBe('');

    await row.locator('input[type=checkbox]').check();
    await page.click('#replay-selected');
    await expect.poll(() => page.locator('#confirm').isVisible()).toBe(true);
    expect(await page.textContent('#confirm-text')).toContain(`(${dead})`);
    await page.click('#confirm-yes');

    await page
      .locator('#replayed tr', { hasText: dead })
      .filter({ hasText: 'sent (delivered)' })
      .waitFor({ timeout: 30_000 });
    await page.locator('#dead tr', { hasText: 'HTTP 503 Service Unavailable' }).waitFor({ state: 'detached' });
    expect((await database.rowState(app.dataSource, schema, dead)).state).toBe('sent');
    expect(app.app.get(RecordingPublisher).published.map((message) => message.id)).toEqual([dead]);
    expect(errors).toEqual([]);

    // `QUEUEBOX_ADMIN_SCREENSHOT=docs/images/admin-page.png` refreshes the documentation's picture.
    if (process.env.QUEUEBOX_ADMIN_SCREENSHOT)
      await page.screenshot({ path: process.env.QUEUEBOX_ADMIN_SCREENSHOT, fullPage: true });
    await page.close();
  });

  it(
    'shows bidirectional overrides and other control characters of keys and errors as escapes, not raw',
    { timeout: 60_000 },
    async () => {
      // U+202E would show "order-1" + "txt.exe" reversed: the cell would read unlike what is stored.
      const dead = await testDatabase().insertOutboxRow(app.dataSource, schema, {
        destination: 'sink',
        key: 'bidi-\u202egpj.exe',
        state: 'dead',
        attempts: 1,
        lastError: 'HTTP 500 \u2066isolated\u2069 \u001b[2Jcleared',
        finishedAgoMs: 1_000,
      });
      const page = await browser.newPage();
      await page.goto(`${app.url}/queuebox/admin`);
      await page.fill('#token', TOKEN);
      await page.click('#connect');
      const row = page.locator('#dead tr', { has: page.locator(`input[value="${dead}"]`) });
      await row.waitFor();
      const text = (await row.textContent()) ?? '';
      expect(text).toContain('bidi-\\u202egpj.exe');
      expect(text).toContain('HTTP 500 \\u2066isolated\\u2069 \\u001b[2Jcleared');
      for (const raw of ['\u202e', '\u2066', '\u2069', '\u001b']) expect(text).not.toContain(raw);
      await row.getByRole('button', { name: 'Inspect' }).click();
      await page.locator('#detail-text', { hasText: 'bidi-' }).waitFor();
      expect(await page.textContent('#detail-text')).not.toMatch(/[\u202e\u2066\u2069]/);
      await page.close();
    },
  );
});
