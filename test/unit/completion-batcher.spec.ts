import { describe, expect, it, vi } from 'vitest';
import type { Claim, FenceResult } from '../../lib/shared/interfaces/claim.interface.js';
import type { ClaimRepository } from '../../lib/engine/claim.repository.js';
import { CompletionBatcher, MAX_MARK_STATEMENTS } from '../../lib/engine/completion-batcher.js';

const claim = (id: number): Claim => ({ component: 'outbox', id: String(id), token: `t${id}`, leaseMs: 1_000 });

/** A repository whose batched completion the test answers, one statement at a time. */
function fakeRepository() {
  const statements: {
    claims: Claim[];
    handOffLeaseMs?: number;
    answer(result: { lost: Claim[]; claimed: unknown[] }): void;
    fail(error: Error): void;
  }[] = [];
  const repository = {
    completeMany: (claims: readonly Claim[], handOffLeaseMs?: number) =>
      new Promise((resolve, reject) =>
        statements.push({ claims: [...claims], handOffLeaseMs, answer: resolve, fail: reject }),
      ),
  } as unknown as ClaimRepository;
  return { repository, statements };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A mark's outcome: whether its statement found its claim lost. */
const complete = <Row>(batcher: CompletionBatcher<Row>, c: Claim): Promise<FenceResult> =>
  batcher.complete(c).then((lost) => (lost.has(c) ? 'lost' : 'ok'));

describe('CompletionBatcher', () => {
  it('marks the completions of one turn in one statement, those that arrive meanwhile in a second at once, and the rest when one ends', async () => {
    const { repository, statements } = fakeRepository();
    const batcher = new CompletionBatcher(repository, () => 60_000, vi.fn());
    const ids = () => statements.map((s) => s.claims.map((c) => c.id));
    const first = [1, 2, 3].map((id) => complete(batcher, claim(id)));
    await turn();
    expect(ids()).toEqual([['1', '2', '3']]);
    const second = [4, 5].map((id) => complete(batcher, claim(id)));
    await turn();
    expect(ids()).toEqual([
      ['1', '2', '3'],
      ['4', '5'],
    ]);
    const third = complete(batcher, claim(6));
    await turn();
    // Both slots busy (MAX_MARK_STATEMENTS): the third waits for one of them to end.
    expect(statements).toHaveLength(MAX_MARK_STATEMENTS);
    statements[0].answer({ lost: [statements[0].claims[1]], claimed: [] });
    expect(await Promise.all(first)).toEqual(['ok', 'lost', 'ok']);
    await turn();
    expect(ids()).toEqual([['1', '2', '3'], ['4', '5'], ['6']]);
    statements[1].answer({ lost: [], claimed: [] });
    statements[2].answer({ lost: [], claimed: [] });
    expect(await Promise.all([...second, third])).toEqual(['ok', 'ok', 'ok']);
  });

  it('hands the rows a statement claimed by hand-off to the worker, and hands nothing on at shutdown', async () => {
    const { repository, statements } = fakeRepository();
    const onClaimed = vi.fn();
    let leaseMs: number | undefined = 60_000;
    const batcher = new CompletionBatcher(repository, () => leaseMs, onClaimed);
    const a = complete(batcher, claim(1));
    await turn();
    expect(statements[0].handOffLeaseMs).toBe(60_000);
    statements[0].answer({ lost: [], claimed: [] });
    await a;
    expect(onClaimed).not.toHaveBeenCalled();
    const b = complete(batcher, claim(2));
    await turn();
    statements[1].answer({ lost: [], claimed: [{ id: '3' }] });
    await b;
    expect(onClaimed).toHaveBeenCalledWith([{ id: '3' }]);
    leaseMs = undefined;
    const c = complete(batcher, claim(4));
    await turn();
    expect(statements[2].handOffLeaseMs).toBeUndefined();
    statements[2].answer({ lost: [], claimed: [] });
    await c;
  });

  it('a failed statement rejects every completion it carried, and the next statement still runs', async () => {
    const { repository, statements } = fakeRepository();
    const batcher = new CompletionBatcher(repository, () => 60_000, vi.fn());
    const failed = [1, 2].map((id) => complete(batcher, claim(id)).catch((error: Error) => error.message));
    await turn();
    statements[0].fail(new Error('connection lost'));
    expect(await Promise.all(failed)).toEqual(['connection lost', 'connection lost']);
    const next = complete(batcher, claim(3));
    await turn();
    statements[1].answer({ lost: [], claimed: [] });
    expect(await next).toBe('ok');
  });

  it('splits a large queue into statements of at most 500 rows', async () => {
    const { repository, statements } = fakeRepository();
    const batcher = new CompletionBatcher(repository, () => 60_000, vi.fn());
    const all = Array.from({ length: 1_200 }, (_, id) => complete(batcher, claim(id)));
    await turn();
    statements[0].answer({ lost: [], claimed: [] });
    await turn();
    statements[1].answer({ lost: [], claimed: [] });
    await turn();
    statements[2].answer({ lost: [], claimed: [] });
    await Promise.all(all);
    expect(statements.map((s) => s.claims.length)).toEqual([500, 500, 200]);
  });
});
