/**
 * The inbox's grants panel (docs/grants.md): the live grants the token may see, each with a
 * Revoke button. Refreshed with the list of waiting calls, so grants given elsewhere (the CLI,
 * another tab, an approval with a grant) and expiries show up within a poll.
 */
import { h } from './dom.js';

const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** Shows the grants `client` may see; `describe` turns an error into `CODE: message`. */
export async function refreshGrants(client, describe) {
  let grants;
  try {
    grants = await client.grants.list();
  } catch (error) {
    $('grants-status').textContent = `Could not load the grants (${describe(error)}).`;
    return;
  }
  $('grants-status').textContent = '';
  const list = $('grant-list');
  const live = new Set(grants.map((grant) => grant.grantId));
  for (const item of [...list.children]) {
    // An item being revoked stays until its answer says what happened.
    if (!live.has(item.dataset.grantId) && item.dataset.busy !== 'true') item.remove();
  }
  const shown = new Set([...list.children].map((item) => item.dataset.grantId));
  for (const grant of grants) {
    if (!shown.has(grant.grantId)) list.append(grantItem(client, grant, describe));
  }
  $('grants-empty').hidden = list.children.length > 0;
}

/** Empties the panel (sign-out). */
export function clearGrants() {
  $('grant-list').replaceChildren();
  $('grants-status').textContent = '';
}

function grantItem(client, grant, describe) {
  const where = grant.threadId
    ? `thread ${grant.threadId} of ${grant.resourceId}`
    : `every thread of ${grant.resourceId}`;
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h(
    'button',
    { type: 'button', class: 'quiet', onclick: () => void revoke() },
    'Revoke',
  );
  const note = h('p', { class: 'meta', role: 'status' });
  const releaseButton = h(
    'button',
    { type: 'button', class: 'quiet', onclick: () => void release() },
    'Release waiting calls',
  );
  const item = h(
    'li',
    { class: 'grant', 'data-grant-id': grant.grantId },
    h(
      'p',
      {},
      h('code', {}, grant.toolName),
      ` of ${grant.agentId} on ${where}`,
      grant.args !== undefined ? [' with ', h('code', {}, JSON.stringify(grant.args))] : '',
    ),
    h(
      'p',
      { class: 'meta' },
      `Given by ${grant.grantedBy?.id ?? 'unknown'}; until ${new Date(grant.expiresAt).toLocaleString()}`,
      grant.reason ? ` (${grant.reason})` : '',
    ),
    releaseButton,
    button,
    note,
    error,
  );
  // Approves the calls waiting now that the grant covers (docs/grant-release.md) and says which.
  async function release() {
    releaseButton.disabled = true;
    error.textContent = '';
    try {
      const done = await client.grants.release(grant.grantId);
      const refused = done.refused.map((r) => `${r.runId}: ${r.error.code}`).join('; ');
      note.textContent =
        `Released ${done.released.length} waiting call(s)` +
        (refused ? `; refused ${done.refused.length} (${refused})` : '') +
        (done.skipped > 0 ? `; ${done.skipped} more run(s), release again` : '') +
        '.';
    } catch (failure) {
      error.textContent = describe(failure);
    } finally {
      releaseButton.disabled = false;
    }
  }
  async function revoke() {
    item.dataset.busy = 'true';
    button.disabled = true;
    error.textContent = '';
    try {
      await client.grants.revoke(grant.grantId);
      item.remove();
      $('grants-empty').hidden = $('grant-list').children.length > 0;
    } catch (failure) {
      error.textContent = describe(failure);
      button.disabled = false;
    } finally {
      item.dataset.busy = 'false';
    }
  }
  return item;
}
