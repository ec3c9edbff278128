import { createHash } from 'node:crypto';
import { ADMIN_PAGE_BODY } from './admin-page.markup.js';
import { ADMIN_PAGE_SCRIPT } from './admin-page.script.js';
import { ADMIN_PAGE_STYLE } from './admin-page.style.js';

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The whole page: one HTML document with its style and script inline. */
export const ADMIN_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>QueueBox admin</title>
<style>${ADMIN_PAGE_STYLE}</style>
</head>
<body>${ADMIN_PAGE_BODY}<script>${ADMIN_PAGE_SCRIPT}</script>
</body>
</html>
`;

/**
 * The page's Content-Security-Policy: only its own inline style and script (by hash), requests to
 * its own origin only, no framing, no forms posting elsewhere.
 */
export const ADMIN_PAGE_CSP = [
  "default-src 'none'",
  `script-src ${hash(ADMIN_PAGE_SCRIPT)}`,
  `style-src ${hash(ADMIN_PAGE_STYLE)}`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
