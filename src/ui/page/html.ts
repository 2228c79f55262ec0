/*
 * The page as one self-contained HTML document: inline CSS and JS, no asset fetched. With a
 * snapshot it is a finished run's report, drawn from the embedded JSON and never connecting;
 * without, it is the live page, which reads the run from /events.
 */
import type { RunSnapshot } from '../view.js';
import { CLIENT_JS } from './bundle.generated.js';
import { PAGE_CSS } from './styles.js';

export interface PageOptions {
  title: string;
  /** The Content-Security-Policy nonce of the <script> and <style> tags. */
  nonce: string;
  /** A finished run to draw statically (the HTML report). */
  snapshot?: RunSnapshot;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** JSON that cannot close its <script> element: every `<` is written as \u003c. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

export function pageHtml(options: PageOptions): string {
  const { title, nonce, snapshot } = options;
  // A nonce goes in an attribute and in a CSP source: base64 or base64url characters only.
  if (!/^[A-Za-z0-9+/_=-]+$/.test(nonce)) throw new Error('pageHtml: the nonce must be base64');
  // The report is a file opened without the server's header: it carries the same policy itself,
  // with nothing to connect to.
  const csp = snapshot
    ? `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src data:">\n`
    : '';
  const data = snapshot ? `<script type="application/json" id="forkpool-snapshot">${scriptJson(snapshot)}</script>\n` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
${csp}<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${PAGE_CSS}</style>
</head>
<body>
${data}<script nonce="${nonce}">${CLIENT_JS}</script>
</body>
</html>
`;
}
