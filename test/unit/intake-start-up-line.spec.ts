import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InboxIntakeController } from '../../lib/features/inbox/inbox-intake.controller.js';
import type { ResolvedQueueBoxOptions } from '../../lib/config/options/resolved-options.interface.js';

/** The line the intake logs at start-up, for these sources. */
function startUpLine(sources: Map<string, { secrets?: Buffer[] }>): string {
  const log = vi.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  const options = { inbox: { sources } } as unknown as ResolvedQueueBoxOptions;
  new InboxIntakeController(undefined as never, undefined as never, undefined as never, options).onModuleInit();
  expect(log).toHaveBeenCalledTimes(1);
  return String(log.mock.calls[0][0]);
}

const KEY = [Buffer.alloc(32, 1)];

describe('the intake start-up line', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('names every source, and which are unsigned, when there are a few', () => {
    const line = startUpLine(
      new Map([
        ['orders', { secrets: KEY }],
        ['partners', {}],
      ]),
    );
    expect(line).toBe(
      'inbox intake accepts sources: orders (signed), partners (UNSIGNED: accepts requests from anyone who can reach it)',
    );
  });

  it('stays short with 20,000 sources: the counts, the unsigned ones first, and how many more', () => {
    const sources = new Map<string, { secrets?: Buffer[] }>();
    for (let i = 0; i < 20_000; i++)
      sources.set(
        `partner-with-a-long-name-${String(i).padStart(5, '0')}`,
        i === 19_999 || i === 12_345 ? {} : { secrets: KEY },
      );
    const line = startUpLine(sources);
    expect(line.length).toBeLessThan(4_000);
    expect(line).toMatch(
      /^inbox intake accepts 20000 sources, 19998 signed and 2 unsigned: partner-with-a-long-name-12345 \(UNSIGNED[^)]*\), partner-with-a-long-name-19999 \(UNSIGNED[^)]*\), partner-with-a-long-name-00000 \(signed\)/,
    );
    expect(line).toMatch(/ and 19970 more$/);
  });
});
