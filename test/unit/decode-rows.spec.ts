import { describe, expect, it } from 'vitest';
import { uuid } from '../../lib/database/decode-rows.js';

describe('decoded uuids', () => {
  // Keeping a lower-case one as the very string sent (no copy per row) saves allocation; no test can see it.
  it('are lower case whatever the driver sent, and a lower-case one comes back unchanged', () => {
    const token = '0b6f1a52-8c5e-4d0e-9a63-2f1d7c1e5b4a';
    expect(uuid(token.toUpperCase())).toBe(token);
    expect(uuid('0B6f1a52-8c5e-4d0e-9a63-2f1d7c1e5b4A')).toBe(token);
    expect(uuid(token)).toBe(token);
    expect(uuid(42)).toBe('42');
  });
});
