/**
 * The pages a signed link opens in the approver's browser: a confirmation with the call's
 * arguments and one button (so link scanners and previews that fetch a URL decide nothing),
 * and the outcome. Plain HTML: no script, no inline style (the server's CSP allows neither).
 */
import type { PendingToolCall } from '../common/run-types.js';
import type { LinkClaims } from '../channels/signed-link.js';
import { escapeHtml as escape } from '../common/html-escape.js';

const ACTION_WORD = { approve: 'Approve', decline: 'Decline' } as const;

export function confirmPage(claims: LinkClaims, call: PendingToolCall | undefined): string {
  const action = ACTION_WORD[claims.action];
  const facts = [
    ['Agent', claims.agentId],
    ['Run', claims.runId],
    ['Tool call', claims.toolCallId],
    ['Fingerprint', claims.fingerprint],
    ['Decides as', claims.decidedBy.id],
    ['Link valid until', new Date(claims.expiresAt).toISOString()],
  ];
  const body = call
    ? `<h1>${action} ${escape(call.toolName)}?</h1>
${list(facts)}
<h2>Arguments</h2>
<pre>${escape(JSON.stringify(call.args, null, 2) ?? 'null')}</pre>
<form method="post"><button type="submit">${action}</button></form>`
    : `<h1>This call does not wait any more</h1>
${list(facts)}
<p>It was decided, expired, or its run ended. Nothing was changed.</p>`;
  return page(`${action}: ${claims.toolCallId}`, body);
}

export function outcomePage(title: string, detail: string): string {
  return page(title, `<h1>${escape(title)}</h1>\n<p>${escape(detail)}</p>`);
}

function list(facts: string[][]): string {
  const rows = facts.map(
    ([term, value]) => `<dt>${escape(term!)}</dt><dd><code>${escape(value!)}</code></dd>`,
  );
  return `<dl>${rows.join('')}</dl>`;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Tollgate: ${escape(title)}</title></head>
<body>
${body}
</body>
</html>
`;
}
