/**
 * The approval inbox: the calls that wait for someone, across agents, with buttons to decide.
 *
 * It imports the client SDK, which the Tollgate server serves from its own compiled package at
 * /inbox/lib. So the browser runs the same tested SSE parser, `AgentStream` and error classes as
 * Node clients do, not a second hand-written reader that could drift from the protocol; and the
 * page stays plain files, with no build step.
 */
import { TollgateClient, isTollgateHttpError } from './lib/http-client/index.js';
import { h } from './dom.js';
import { createRow, refreshFacts, setState, settle, tick } from './row.js';
import { clearGrants, refreshGrants } from './grants.js';

/**
 * The list is polled, not pushed: one cheap GET every 2 s survives server restarts and proxies
 * without reconnect logic, and it sees decisions made elsewhere (the CLI, another tab, expiry).
 */
const POLL_MS = 2000;
/** Runs per listing; more waiting runs than this is a queue for the CLI, not for a page. */
const PER_PAGE = 100;
const TOKEN_KEY = 'tollgate.token';
/** `?agentId=`, `?threadId=`, `?resourceId=` in the page's address narrow the list. */
const FILTERS = Object.fromEntries(
  ['agentId', 'threadId', 'resourceId'].flatMap((name) => {
    const value = new URLSearchParams(location.search).get(name);
    return value ? [[name, value]] : [];
  }),
);
const DONE_WORD = { approve: 'Approved', decline: 'Declined', resume: 'Resumed' };

const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @type {TollgateClient | undefined} */
let client;
/** @type {Map<string, import('./row.js').Row>} rows by `runId/toolCallId` */
const rows = new Map();
let pollTimer = 0;
let polling = false;
let pollAgain = false;

// ---- token -------------------------------------------------------------------------------------

/** `?token=` is accepted for convenience, then removed so it stays out of history and bookmarks. */
function takeTokenFromUrl() {
  const url = new URL(location.href);
  const token = url.searchParams.get('token');
  if (token === null) return;
  url.searchParams.delete('token');
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  if (token !== '') sessionStorage.setItem(TOKEN_KEY, token);
}

function start(token) {
  client = new TollgateClient({ baseUrl: location.origin, token });
  $('token-form').hidden = true;
  $('inbox').hidden = false;
  $('grants').hidden = false;
  $('sign-out').hidden = false;
  void poll();
}

function signOut(message = '') {
  sessionStorage.removeItem(TOKEN_KEY);
  client = undefined;
  clearTimeout(pollTimer);
  for (const row of rows.values()) row.el.remove();
  rows.clear();
  $('inbox').hidden = true;
  $('grants').hidden = true;
  clearGrants();
  $('sign-out').hidden = true;
  setStatus('');
  $('token-form').hidden = false;
  $('token-error').textContent = message;
  $('token-input').focus();
}

// ---- the list ----------------------------------------------------------------------------------

async function poll() {
  if (polling) {
    pollAgain = true;
    return;
  }
  polling = true;
  clearTimeout(pollTimer);
  const startedAt = Date.now();
  try {
    if (!client) return;
    const grants = refreshGrants(client, describe);
    const { approvals, total } = await client.listApprovals({ ...FILTERS, perPage: PER_PAGE });
    await grants;
    if (!client) return;
    render(approvals, startedAt);
    const runs = new Set(approvals.map((a) => a.runId)).size;
    const only = Object.entries(FILTERS).map(([name, value]) => `${name} ${value}`);
    setStatus(
      `${approvals.length} ${approvals.length === 1 ? 'call waits' : 'calls wait'}` +
        (only.length ? ` (only ${only.join(', ')})` : '') +
        (total > runs ? ` (showing ${runs} of ${total} waiting runs)` : '') +
        '.',
    );
  } catch (error) {
    if (isTollgateHttpError(error, 'UNAUTHORIZED')) {
      return signOut('The server refused this token.');
    }
    setStatus(`Could not load the waiting calls (${describe(error)}). Retrying.`, true);
  } finally {
    polling = false;
    if (client) pollTimer = window.setTimeout(poll, pollAgain ? 0 : POLL_MS);
    pollAgain = false;
  }
}

/** Adds new rows (oldest first), refreshes known ones, and drops those that no longer wait. */
function render(approvals, startedAt) {
  const seen = new Set();
  const sorted = [...approvals].sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
  for (const item of sorted) {
    const key = keyOf(item);
    seen.add(key);
    const row = rows.get(key);
    if (!row) {
      const created = createRow(item, (r, kind, detail) => void decide(r, kind, detail));
      rows.set(key, created);
      $('approvals').append(created.el);
      continue;
    }
    row.item = item;
    refreshFacts(row);
    // Still waiting after our decision settled: one approval of a quorum, or a new suspend().
    if (row.state === 'done' && startedAt > row.settledAt) setState(row, 'waiting');
  }
  for (const [key, row] of rows) {
    if (seen.has(key) || row.state !== 'waiting') continue;
    if (row.el.contains(document.activeElement)) {
      // Someone is typing in it: say why it stopped waiting rather than pull it away.
      row.parts.outcome.replaceChildren(
        h('p', {}, 'No longer waits: decided elsewhere, expired, or the run ended.'),
      );
      settle(row, () => dismiss(row));
    } else {
      dismiss(row);
    }
  }
  $('empty').hidden = rows.size > 0;
  refreshBatchBar();
}

function dismiss(row) {
  row.el.remove();
  rows.delete(keyOf(row.item));
  $('empty').hidden = rows.size > 0;
}

const keyOf = (item) => `${item.runId}/${item.toolCallId}`;

// ---- decisions ---------------------------------------------------------------------------------

/** Sends the decision, then follows the run's continuation (its SSE stream) to its end. */
async function decide(row, kind, detail) {
  if (!client || row.state !== 'waiting') return;
  const { agentId, runId, toolCallId, fingerprint } = row.item;
  const agent = client.getAgent(agentId);
  setState(row, 'busy');
  row.parts.error.textContent = '';
  const progress = h('p', {}, 'Sending…');
  row.parts.outcome.replaceChildren(progress);
  let applied = false;
  if (kind === 'handOff') return handOff(row, agent, detail);
  try {
    // Approving names the fingerprint shown: if the arguments changed, the server refuses.
    const stream =
      kind === 'approve'
        ? await agent.approveToolCall({ runId, toolCallId, fingerprint, ...(detail ?? {}) })
        : kind === 'decline'
          ? await agent.declineToolCall({
              runId,
              toolCallId,
              ...(detail ? { reason: detail } : {}),
            })
          : await agent.resumeStream(detail, { runId, toolCallId });
    applied = true;
    progress.textContent = `${DONE_WORD[kind]}. The run goes on…`;
    const live = h('p', { class: 'final-text' });
    row.parts.outcome.append(live);
    for await (const chunk of stream.fullStream) {
      if (chunk.type === 'text-delta') live.textContent += chunk.payload.text;
      // Live text of a model step attempt that failed: the run's log holds the retry's instead.
      if (chunk.type === 'text-withdrawn' && chunk.payload.text.length > 0) {
        live.textContent = live.textContent.slice(0, -chunk.payload.text.length);
      }
    }
    row.parts.outcome.replaceChildren(...(await outcomeOf(row.item, kind, detail, stream)));
    settle(row, () => dismiss(row));
  } catch (error) {
    if (isTollgateHttpError(error, 'UNAUTHORIZED')) {
      return signOut('The server refused this token.');
    }
    if (applied) {
      progress.textContent = `${DONE_WORD[kind]}, but following the run failed: ${describe(error)}`;
      settle(row, () => dismiss(row));
    } else {
      row.parts.outcome.replaceChildren();
      row.parts.error.textContent = describe(error);
      setState(row, 'waiting');
    }
  }
  void poll();
}

/**
 * Hands the call off: it keeps waiting, for the new approvers, so the row comes back with its
 * new facts at the next poll (and its buttons, which the server refuses if we no longer decide).
 */
async function handOff(row, agent, detail) {
  const { runId, toolCallId, fingerprint } = row.item;
  try {
    const handed = await agent.handOffToolCall({ runId, toolCallId, fingerprint, ...detail });
    row.parts.outcome.replaceChildren(
      h('p', {}, `Handed off to ${handed.approvers.join(', ')}; the call waits for them.`),
    );
    settle(row, () => dismiss(row));
  } catch (error) {
    if (isTollgateHttpError(error, 'UNAUTHORIZED'))
      return signOut('The server refused this token.');
    row.parts.outcome.replaceChildren();
    row.parts.error.textContent = describe(error);
    setState(row, 'waiting');
  }
  void poll();
}

/** The rows picked for "Approve selected" that still wait. */
function selectedRows() {
  return [...rows.values()].filter((row) => row.state === 'waiting' && row.parts.select?.checked);
}

function refreshBatchBar() {
  const count = selectedRows().length;
  const button = /** @type {HTMLButtonElement} */ ($('approve-selected'));
  button.disabled = count === 0;
  button.textContent = count > 0 ? `Approve selected (${count})` : 'Approve selected';
}

/**
 * Approves every picked call in one request. Each is judged on its own (approvers, fingerprint
 * shown, expiry): a refused one keeps its row, with the reason, and the others go through.
 */
async function approveSelected() {
  const picked = selectedRows();
  if (!client || picked.length === 0) return;
  for (const row of picked) {
    setState(row, 'busy');
    row.parts.error.textContent = '';
    row.parts.outcome.replaceChildren(h('p', {}, 'Sending…'));
  }
  refreshBatchBar();
  try {
    const results = await client.decideMany(
      picked.map((row) => {
        const { agentId, runId, toolCallId, fingerprint } = row.item;
        return { agentId, runId, toolCallId, fingerprint, action: 'approve' };
      }),
    );
    const approved = results.filter((result) => result.ok).length;
    picked.forEach((row, at) => {
      const result = results[at];
      if (result?.ok) {
        const words =
          result.decision === 'approval-recorded'
            ? 'Approval recorded: the call waits for more approvals.'
            : 'Approved (with the selection). The run goes on.';
        row.parts.outcome.replaceChildren(h('p', {}, words));
        settle(row, () => dismiss(row));
      } else {
        row.parts.outcome.replaceChildren();
        row.parts.error.textContent = result
          ? `${result.error.code}: ${result.error.message}`
          : 'No answer for this call.';
        setState(row, 'waiting');
        row.parts.select.checked = false;
      }
    });
    $('batch-status').textContent = `${approved} of ${picked.length} approved.`;
  } catch (error) {
    if (isTollgateHttpError(error, 'UNAUTHORIZED')) {
      return signOut('The server refused this token.');
    }
    for (const row of picked) {
      row.parts.outcome.replaceChildren();
      row.parts.error.textContent = describe(error);
      setState(row, 'waiting');
    }
  }
  refreshBatchBar();
  void poll();
}

/** What became of the run: completed (with its text and tool results), waits again, failed. */
async function outcomeOf(item, kind, reason, stream) {
  const [finishReason, finalText, results, next] = await Promise.all([
    stream.finishReason,
    stream.text,
    stream.toolResults,
    stream.suspendPayload,
  ]);
  const done = `${DONE_WORD[kind]}${kind === 'decline' && reason ? ` (reason: ${reason})` : ''}`;
  let summary = `${done}. The run completed (${finishReason}).`;
  if (finishReason === 'error') summary = `${done}. The run failed.`;
  if (finishReason === 'suspended') {
    const waits =
      next && `: ${next.toolName} ${next.requiresApproval ? 'needs approval' : 'needs input'}`;
    summary =
      kind === 'approve' && next?.toolCallId === item.toolCallId
        ? 'Approval recorded: the call waits for more approvals.'
        : `${done}. The run waits again${waits ?? ''}.`;
  }
  return [
    h('p', {}, summary),
    results.length > 0 &&
      h(
        'ul',
        { class: 'results' },
        results.map((r) =>
          h(
            'li',
            {},
            h('code', {}, r.toolName),
            r.error !== undefined ? ` failed: ${r.error}` : ` → ${JSON.stringify(r.result)}`,
          ),
        ),
      ),
    finalText && h('blockquote', { class: 'final-text' }, finalText),
  ].filter(Boolean);
}

// ---- helpers and wiring ------------------------------------------------------------------------

function setStatus(message, isError = false) {
  const status = $('status');
  // Rewriting the same words would make screen readers announce them every 2 s.
  if (status.textContent !== message) status.textContent = message;
  status.classList.toggle('error', isError);
}

/** An API error as `CODE: message`, the shape every answer of the server uses. */
function describe(error) {
  if (isTollgateHttpError(error)) return `${error.code}: ${error.message}`;
  if (error instanceof TypeError) return `the server did not answer (${error.message})`;
  return error instanceof Error ? error.message : String(error);
}

$('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ ($('token-input'));
  const token = input.value.trim();
  input.value = '';
  sessionStorage.setItem(TOKEN_KEY, token);
  start(token);
});
$('sign-out').addEventListener('click', () => signOut());
$('approve-selected').addEventListener('click', () => void approveSelected());
$('approvals').addEventListener('selection', refreshBatchBar);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && client) void poll();
});
setInterval(() => rows.forEach(tick), 1000);

takeTokenFromUrl();
const saved = sessionStorage.getItem(TOKEN_KEY);
if (saved) start(saved);
else signOut();
