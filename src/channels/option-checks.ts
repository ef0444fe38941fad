/** Checks shared by the channels' options and the server's: signing secrets and URLs. */
import { TollgateError } from '../common/errors.js';

/** Env var holding the links' signing secret (or several, comma-separated: the first signs). */
export const CHANNELS_SECRET_ENV = 'TOLLGATE_CHANNELS_SECRET';
/** Shortest signing secret accepted, characters (Slack's signing secrets have 32). */
export const MIN_SECRET_LENGTH = 32;

/** Where a secret comes from when it is not given: its env var and the option to set instead. */
export interface SecretSource {
  env: string;
  option: string;
  /** How to make one, when the operator picks it. */
  hint?: string;
}

const LINKS: SecretSource = {
  env: CHANNELS_SECRET_ENV,
  option: 'channels.signingSecret',
  hint: ' (e.g. openssl rand -hex 32)',
};

/**
 * The secrets a request or link may be signed with: `secret`, or the env var's comma-separated
 * list (the first current, the others still accepted while they are rotated out).
 */
export function signingSecrets(
  secret: string | string[] | undefined,
  where: string,
  source: SecretSource = LINKS,
): string[] {
  const listed = secret ?? process.env[source.env]?.split(',');
  const secrets = (typeof listed === 'string' ? [listed] : (listed ?? [])).map((s) => s.trim());
  if (secrets.length === 0 || secrets.some((s) => s.length < MIN_SECRET_LENGTH)) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `${where} needs a signing secret of at least ${MIN_SECRET_LENGTH} characters: set ${source.option} or ${source.env}${source.hint ?? ''}.`,
    );
  }
  return secrets;
}

/** `value` when it is an http(s) URL; `INVALID_OPTIONS` naming `field` otherwise. */
export function checkUrl(value: unknown, field: string): string {
  if (typeof value === 'string') {
    try {
      const url = new URL(value);
      if (url.protocol === 'https:' || url.protocol === 'http:') return value;
    } catch {
      // Falls through to the error below.
    }
  }
  throw new TollgateError(
    'INVALID_OPTIONS',
    `${field} must be an http(s) URL, not ${JSON.stringify(value)}.`,
  );
}
