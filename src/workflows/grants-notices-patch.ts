/**
 * Runs that record this patch (generation `8-run-grants-decided-notices` of the replay fixtures)
 * let a run grant reach past the call that gave it: it approves the tool's calls already waiting
 * in the run, and it is carried into the run's next execution at a continue-as-new
 * (docs/grants.md "For this run"); and they rewrite a call's Slack message when the call is
 * decided outside Slack (docs/slack.md). The patch is asked only where one of these happens: a
 * run grant covers a waiting call, a run with run grants continues as new, or a call with Slack
 * notices is decided by anything but a click in Slack. Histories without one replay as before.
 */
export const GRANTS_NOTICES_PATCH = 'tollgate-run-grants-decided-notices';
