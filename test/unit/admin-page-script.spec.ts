import { createHash } from 'node:crypto';
import { createContext, Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ADMIN_PAGE_BODY } from '../../lib/surfaces/admin/page/admin-page.markup.js';
import { ADMIN_PAGE_CSP, ADMIN_PAGE_HTML } from '../../lib/surfaces/admin/page/admin-page.js';

/*
 * The page's script is the source text of a compiled function (admin-page.client.ts), inlined by
 * admin-page.script.ts. These checks fail when the inlining breaks: text that is no classic script,
 * a module's import or export, a helper left outside the function, or a CSP hash of other text.
 * The browser test (test/integration/shared/admin-page.spec.ts) runs the whole page in chromium.
 */

/** The text of every script element of the served page. */
const scripts = [...ADMIN_PAGE_HTML.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(([, text]) => text);
const script = scripts[0];

/** Runs the script as a browser would, on a page whose elements only record their listeners. */
function runWithRecordedListeners(): string[] {
  const listened: string[] = [];
  const element = (id: string) => ({
    addEventListener: (type: string) => listened.push(`${id}:${type}`),
  });
  const page = {
    location: { pathname: '/queuebox/admin/' },
    document: { getElementById: element, querySelectorAll: () => [] },
  };
  new Script(script, { filename: 'admin-page-inline.js' }).runInContext(createContext(page));
  return listened;
}

describe('the admin page script', () => {
  it('is one inline script that parses as a classic script, without import or export', () => {
    expect(scripts).toHaveLength(1);
    expect(() => new Script(script)).not.toThrow();
    expect(script).not.toMatch(/\b(import|export)\b/);
    // The HTML parser would end the script element there.
    expect(script).not.toMatch(/<\/script|<!--/i);
  });

  it('is the text the Content-Security-Policy hashes', () => {
    const hash = createHash('sha256').update(script, 'utf8').digest('base64');
    expect(ADMIN_PAGE_CSP).toContain(`script-src 'sha256-${hash}'`);
  });

  it('runs on its own, with no helper outside its function, and wires elements of the markup', () => {
    const listened = runWithRecordedListeners();
    expect(listened).toEqual([
      'connect:click',
      'token:keydown',
      'refresh:click',
      'filter:submit',
      'select-all:change',
      'next-page:click',
      'replay-selected:click',
      'discard-selected:click',
      'replay-matching:click',
      'discard-matching:click',
    ]);
    for (const entry of listened) expect(ADMIN_PAGE_BODY).toContain(`id="${entry.split(':')[0]}"`);
  });
});
