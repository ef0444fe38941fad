/**
 * One waiting call on the page: what it is (tool, arguments, fingerprint, agent, thread, run,
 * how long it has waited, its deadline and approvals so far) and the controls that decide it.
 */
import { h } from './dom.js';
import { resumeForm } from './resume-form.js';

/**
 * @typedef {'waiting' | 'busy' | 'done'} RowState
 * @typedef {{ item: any, el: HTMLElement, state: RowState, settledAt: number,
 *   factsSignature?: string, parts: Record<string, HTMLElement> }} Row
 */

/**
 * @param {any} item a `PendingApproval`
 * @param {(row: Row, kind: 'approve' | 'decline' | 'resume' | 'handOff', detail?: unknown) => void} decide
 * @returns {Row}
 */
export function createRow(item, decide) {
  const id = `call-${cssId(item.runId)}-${cssId(item.toolCallId)}`;
  const parts = {
    facts: h('dl', { class: 'facts' }),
    actions: h('div', { class: 'actions' }),
    error: h('p', { class: 'error', role: 'alert' }),
    outcome: h('div', { class: 'outcome', role: 'status' }),
  };
  const kind = item.requiresApproval ? 'approve' : 'resume';
  const el = h(
    'li',
    {
      class: 'approval',
      'aria-labelledby': `${id}-title`,
      'data-run-id': item.runId,
      'data-tool-call-id': item.toolCallId,
    },
    h(
      'header',
      {},
      h(
        'h3',
        { id: `${id}-title` },
        h('code', { class: 'tool' }, item.toolName),
        // Where the tool's id differs from its name (its key), operators see both.
        item.toolId !== undefined && [' ', h('code', { class: 'tool-id' }, `id ${item.toolId}`)],
        ' ',
        h(
          'span',
          { class: `kind kind-${kind}` },
          kind === 'approve' ? 'needs approval' : 'needs input',
        ),
      ),
      h('time', {
        class: 'waiting',
        datetime: item.requestedAt,
        title: localTime(item.requestedAt),
      }),
    ),
    parts.facts,
    h('h4', {}, 'Arguments'),
    h('pre', { class: 'json', tabindex: '0' }, pretty(item.args)),
    item.suspendPayload !== undefined && [
      h('h4', {}, 'The tool asks'),
      h('pre', { class: 'json', tabindex: '0' }, pretty(item.suspendPayload)),
    ],
    parts.actions,
    parts.error,
    parts.outcome,
  );
  /** @type {Row} */
  const row = { item, el, state: 'waiting', settledAt: 0, parts };
  el.dataset.state = 'waiting';
  if (kind === 'approve') parts.actions.append(...approvalControls(row, id, decide));
  else
    parts.actions.append(resumeForm(item.resumeSchema, id, (data) => decide(row, 'resume', data)));
  refreshFacts(row);
  return row;
}

/** Approve, and Decline, which opens an inline reason field before anything is sent. */
function approvalControls(row, id, decide) {
  const reason = h('input', {
    id: `${id}-reason`,
    name: 'reason',
    type: 'text',
    autocomplete: 'off',
  });
  const decline = inlineForm({
    label: 'Decline',
    formClass: 'decline-form',
    confirm: h('button', { type: 'submit', class: 'danger' }, 'Confirm decline'),
    fields: [h('label', { for: `${id}-reason` }, 'Reason (optional)'), reason],
    first: reason,
    onSubmit: () => decide(row, 'decline', reason.value.trim()),
  });
  const handOff = handOffControls(row, id, decide);
  // A budget approval is approved with the amount that raises the run's limit (docs/budgets.md):
  // its own form, and no batch selection, since "Approve selected" sends no amount.
  if (row.item.budget) {
    const raise = raiseControls(row, id, decide);
    return [
      h('div', { class: 'buttons' }, raise.button, decline.button, handOff.button),
      raise.form,
      decline.form,
      handOff.form,
    ];
  }
  const approve = h(
    'button',
    { type: 'button', class: 'primary', onclick: () => decide(row, 'approve') },
    'Approve',
  );
  // Picked for "Approve selected", which decides all picked calls in one request.
  const select = h('input', {
    id: `${id}-select`,
    type: 'checkbox',
    class: 'select',
    name: 'select',
    onchange: () => row.el.dispatchEvent(new Event('selection', { bubbles: true })),
  });
  row.parts.select = select;
  return [
    h(
      'div',
      { class: 'buttons' },
      h('label', { class: 'select-label', for: `${id}-select` }, select, ' Select'),
      approve,
      decline.button,
      handOff.button,
    ),
    decline.form,
    handOff.form,
  ];
}

/** Approve a budget approval: the amount (positive) that raises the run's limit, then confirm. */
function raiseControls(row, id, decide) {
  const { metric } = row.item.budget;
  const amount = h('input', {
    id: `${id}-amount`,
    name: 'amount',
    // No `min`: the browser would then refuse the form silently; the check below says why.
    type: 'number',
    step: 'any',
    inputmode: 'decimal',
  });
  return inlineForm({
    label: 'Approve…',
    formClass: 'raise-form',
    confirm: h('button', { type: 'submit', class: 'primary' }, 'Approve and raise'),
    fields: [h('label', { for: `${id}-amount` }, `Raise the ${metric} limit by`), amount],
    first: amount,
    onSubmit: () => {
      const value = Number(amount.value);
      if (amount.value.trim() === '' || !Number.isFinite(value) || value <= 0) {
        row.parts.error.textContent = `Give the amount that raises the ${metric} limit: a number above 0.`;
        amount.focus();
        return;
      }
      decide(row, 'approve', { amount: value });
    },
  });
}

/**
 * Hand off: opens fields for who decides from now on (ids or role:<name>, comma-separated) and
 * a note; nothing is sent before "Confirm hand-off" (docs/hand-off.md).
 */
function handOffControls(row, id, decide) {
  const to = h('input', { id: `${id}-to`, name: 'to', type: 'text', autocomplete: 'off' });
  const note = h('input', { id: `${id}-note`, name: 'note', type: 'text', autocomplete: 'off' });
  return inlineForm({
    label: 'Hand off',
    formClass: 'hand-off-form',
    confirm: h('button', { type: 'submit' }, 'Confirm hand-off'),
    fields: [
      h('label', { for: `${id}-to` }, 'Hand off to (ids or role:name, comma-separated)'),
      to,
      h('label', { for: `${id}-note` }, 'Note (optional)'),
      note,
    ],
    first: to,
    onSubmit: () => {
      const targets = to.value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean);
      if (targets.length === 0) {
        row.parts.error.textContent = 'Say who to hand the call off to.';
        to.focus();
        return;
      }
      const text = note.value.trim();
      decide(row, 'handOff', { to: targets, ...(text ? { note: text } : {}) });
    },
  });
}

/** A button that opens an inline form (Escape or Cancel closes it); `onSubmit` on confirm. */
function inlineForm({ label, formClass, confirm, fields, first, onSubmit }) {
  const form = h(
    'form',
    { class: formClass, hidden: '' },
    ...fields,
    confirm,
    h('button', { type: 'button', class: 'quiet', onclick: () => toggle(false) }, 'Cancel'),
  );
  const button = h(
    'button',
    { type: 'button', 'aria-expanded': 'false', onclick: () => toggle(true) },
    label,
  );
  function toggle(open) {
    form.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    (open ? first : button).focus();
  }
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') toggle(false);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    onSubmit();
  });
  return { button, form };
}

/** Redraws the facts when they changed (approvals so far, a new deadline); the rest is fixed. */
export function refreshFacts(row) {
  const { item } = row;
  // Redrawing unchanged facts on every poll would take keyboard focus off the Copy button.
  const signature = JSON.stringify([
    item.expiresAt,
    item.approvers,
    item.quorum,
    item.approvals,
    item.reassigned,
  ]);
  if (row.factsSignature === signature) return;
  row.factsSignature = signature;
  const facts = [
    ['Agent', item.path?.length ? item.path.join(' → ') : item.agentId],
    item.threadId !== undefined && ['Thread', item.threadId],
    ['Run', h('code', {}, item.runId)],
    ['Fingerprint', fingerprint(item.fingerprint)],
    item.expiresAt !== undefined && [
      'Expires',
      h('time', { class: 'expires', datetime: item.expiresAt, title: localTime(item.expiresAt) }),
    ],
    item.budget !== undefined && [
      'Budget',
      `${item.budget.metric}: ${item.budget.used} used of ${item.budget.limit}`,
    ],
    item.approvers?.length > 0 && ['Approvers', item.approvers.join(', ')],
    // The last escalation or hand-off: why these approvers decide now.
    item.reassigned?.length > 0 && ['Reassigned', reassignedText(item.reassigned.at(-1))],
    item.quorum !== undefined && ['Approvals', approvalsSoFar(item)],
    // Why the gate stopped the call, e.g. an MCP tool whose definition changed.
    item.gateNote !== undefined && ['Gated because', item.gateNote],
  ].filter(Boolean);
  row.parts.facts.replaceChildren(
    ...facts.map(([term, value]) => h('div', {}, h('dt', {}, term), h('dd', {}, value))),
  );
  tick(row);
}

function reassignedText(change) {
  if (change.kind === 'escalation')
    return `escalated (level ${change.level}) ${localTime(change.at)}`;
  const note = change.note ? `: “${change.note}”` : '';
  return `handed off by ${change.by?.id ?? 'an approver'} ${localTime(change.at)}${note}`;
}

function approvalsSoFar(item) {
  const given = item.approvals ?? [];
  const who = given.length ? `: ${given.map((a) => a.id).join(', ')}` : '';
  return `${given.length} of ${item.quorum}${who}`;
}

/** The first 12 characters, the whole on hover, and a button that copies the whole. */
function fingerprint(full) {
  const code = h('code', { title: full }, full.slice(0, 12));
  const copy = h(
    'button',
    { type: 'button', class: 'quiet small', 'aria-label': 'Copy the full fingerprint' },
    'Copy',
  );
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(full);
      copy.textContent = 'Copied';
    } catch {
      // No clipboard (insecure context, permission): show it whole and selected, for Ctrl+C.
      code.textContent = full;
      getSelection()?.selectAllChildren(code);
    }
  });
  return [code, ' ', copy];
}

/** Busy and done rows keep their controls disabled, so a call is never decided twice from here. */
export function setState(row, state) {
  row.state = state;
  row.el.dataset.state = state;
  for (const control of row.parts.actions.querySelectorAll('button, input, select, textarea')) {
    control.disabled = state !== 'waiting';
  }
}

/** The decision is over (its outcome is shown): the row stays until dismissed. */
export function settle(row, onDismiss) {
  setState(row, 'done');
  row.settledAt = Date.now();
  const waiting = row.el.querySelector('time.waiting');
  if (waiting) waiting.textContent = 'decided';
  row.parts.outcome.append(
    h('button', { type: 'button', class: 'quiet small', onclick: onDismiss }, 'Dismiss'),
  );
}

/** Updates "waiting 3 min" and "in 59 min"; called every second. */
export function tick(row) {
  if (row.state === 'done') return;
  const now = Date.now();
  const waiting = row.el.querySelector('time.waiting');
  if (waiting) waiting.textContent = `waiting ${duration(now - Date.parse(row.item.requestedAt))}`;
  const expires = row.el.querySelector('time.expires');
  if (expires && row.item.expiresAt) {
    const left = Date.parse(row.item.expiresAt) - now;
    expires.textContent = left >= 0 ? `in ${duration(left)}` : `${duration(-left)} ago`;
  }
}

function duration(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const hours = Math.floor(min / 60);
  if (hours < 48) return `${hours} h ${min % 60} min`;
  return `${Math.floor(hours / 24)} days`;
}

const pretty = (value) => JSON.stringify(value, null, 2) ?? 'undefined';
const cssId = (value) => value.replace(/[^\w-]/g, '_');
const localTime = (iso) => new Date(iso).toLocaleString();
