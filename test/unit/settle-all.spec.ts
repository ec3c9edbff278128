import { describe, expect, it } from 'vitest';
import { settleAll } from '../../lib/engine/settle-all.js';

describe('settleAll', () => {
  it('rejects with the first failure only once every sibling has settled', async () => {
    const events: string[] = [];
    let finishSlow!: () => void;
    const slow = new Promise<string>((resolve) => {
      finishSlow = () => {
        events.push('slow settled');
        resolve('slow');
      };
    });
    const failed = settleAll([Promise.reject(new Error('first')), slow, Promise.reject(new Error('second'))]).catch(
      (error: Error) => {
        events.push(`rejected: ${error.message}`);
      },
    );
    // Give a Promise.all time to reject early: it would, before the slow sibling settles.
    for (let turn = 0; turn < 10; turn++) await Promise.resolve();
    finishSlow();
    await failed;
    expect(events).toEqual(['slow settled', 'rejected: first']);
  });

  it('resolves to the values in order, typed per position', async () => {
    const [count, name] = await settleAll([Promise.resolve(3), Promise.resolve('x')]);
    expect([count + 1, name.toUpperCase()]).toEqual([4, 'X']);
  });
});
