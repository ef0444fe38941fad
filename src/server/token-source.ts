/**
 * The server's tokens as they are now (docs/production.md "Revoking a token"). A tokens file is
 * checked on every authenticated request and read again when it changed, so a token removed or a
 * role taken away counts from the next request on, without a restart: an approver loses the right
 * to decide a call that was gated while they still had it. An unreadable or invalid file refuses
 * every request (fail closed) until it is fixed: a half-edited file must not keep a revoked token.
 */
import { stat } from 'node:fs/promises';
import { TollgateError } from '../common/errors.js';
import type { DecidedBy } from '../common/run-types.js';
import {
  checkAuthConfig,
  readTokensFile,
  tokenMatcher,
  type AuthConfig,
  type Caller,
  type CallerLookup,
} from './auth.js';

/** What identifies one version of the file: a write changes at least one of them. */
type FileVersion = string;

interface Loaded {
  version: FileVersion;
  match: (presented: string) => Caller | undefined;
  config: AuthConfig;
}

export class TokenSource implements CallerLookup {
  private loaded: Loaded | undefined;
  /** The version of the file that failed to load, and why: refused again without a read. */
  private failed: { version: FileVersion; error: unknown } | undefined;
  /** The read under way, shared by the requests that saw the same version of the file. */
  private reading: { version: FileVersion; loaded: Promise<Loaded> } | undefined;

  constructor(
    private readonly config: AuthConfig,
    private readonly onReload: (error: unknown) => void = () => undefined,
  ) {
    const checked = checkAuthConfig(config);
    if (config.tokensFile === undefined) {
      this.loaded = { version: '', match: tokenMatcher(checked), config: checked };
    }
  }

  /**
   * The caller a presented token stands for, as the tokens are now.
   *
   * @throws TollgateError `INVALID_OPTIONS` when the tokens file cannot be read or is invalid.
   */
  async callerOf(presented: string): Promise<Caller | undefined> {
    return (await this.current()).match(presented);
  }

  /**
   * The identity `id` has now: the id with the roles of its first token, or `undefined` when no
   * token names it (the identity has no token, or it was revoked).
   */
  async identityOf(id: string): Promise<DecidedBy | undefined> {
    const token = (await this.current()).config.tokens.find((entry) => entry.id === id);
    return token ? { id, ...(token.roles ? { roles: [...token.roles] } : {}) } : undefined;
  }

  private async current(): Promise<Loaded> {
    const file = this.config.tokensFile;
    if (file === undefined) return this.loaded!;
    const version = await versionOf(file);
    if (this.loaded?.version === version) return this.loaded;
    if (this.failed?.version === version) throw this.failed.error;
    if (this.reading?.version !== version) {
      const reading = { version, loaded: this.read(file, version) };
      this.reading = reading;
      void reading.loaded
        .catch(() => undefined)
        .finally(() => {
          if (this.reading === reading) this.reading = undefined;
        });
    }
    return this.reading.loaded;
  }

  private async read(file: string, version: FileVersion): Promise<Loaded> {
    try {
      const config = readTokensFile(file);
      this.loaded = { version, match: tokenMatcher(config), config };
      this.failed = undefined;
      this.onReload(undefined);
      return this.loaded;
    } catch (error) {
      // Forget the old tokens: until the file is fixed, nobody is let in on them.
      this.loaded = undefined;
      this.failed = { version, error };
      this.onReload(error);
      throw error;
    }
  }
}

async function versionOf(file: string): Promise<FileVersion> {
  try {
    const info = await stat(file, { bigint: true });
    return `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  } catch (error) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `Cannot read the tokens file ${file}; restore it (every request is refused until then).`,
      { cause: error },
    );
  }
}
