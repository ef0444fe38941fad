/**
 * Locates (and, when allowed, installs) the `temporal` CLI that runs the local dev server.
 */
import { execFile, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TollgateError } from '../common/errors.js';
import { pathExists } from '../common/path-exists.js';

const execFileAsync = promisify(execFile);

/** The CLI's main package. */
const CLI_MAIN_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';

/** The Go package and pinned version installed when the CLI cannot be built from `CLI_MODULE`. */
export const TEMPORAL_CLI_PACKAGE = `${CLI_MAIN_PACKAGE}@v1.5.1`;

/**
 * The Go module, shipped in this package's `devserver/` directory, that the CLI is built from when
 * none is found: the same release as `TEMPORAL_CLI_PACKAGE` with a newer `modernc.org/sqlite`.
 * The SQLite driver v1.5.1 builds with can leave a connection interrupted by a cancelled request,
 * and the dev server then answers every call with `interrupted (9)` until it is restarted
 * (docs/performance.md "The stuck dev server").
 */
const CLI_MODULE = fileURLToPath(new URL('../../../devserver/', import.meta.url));

const EXE_SUFFIX = process.platform === 'win32' ? '.exe' : '';

/** Options for {@link findTemporalCli}. */
export interface FindTemporalCliOptions {
  /** Receives progress lines, including Go's output. Default: written to stderr. */
  log?: (line: string) => void;
  /** Whether to build or `go install` the CLI when none is found. Default: `true`. */
  install?: boolean;
  /**
   * Environment to search (`TEMPORAL_CLI`, `PATH`, `GOPATH`, `GOBIN`, `HOME`) and to run `go`
   * with. Default: `process.env`. Mainly for tests that simulate a machine without the CLI.
   */
  env?: NodeJS.ProcessEnv;
}

/** One install per process, shared by concurrent callers. */
let pendingInstall: Promise<string> | undefined;

/**
 * Returns the path of a `temporal` CLI binary. Looks at `$TEMPORAL_CLI`, then `PATH`, then
 * Go's bin directories (`$GOBIN`, `$(go env GOPATH)/bin`); failing those, unless `install` is
 * `false`, builds {@link TEMPORAL_CLI_PACKAGE} from `CLI_MODULE` into the first of them, or, if
 * that build fails, installs it as it is with `go install`.
 *
 * @throws TollgateError `TEMPORAL_CLI_UNAVAILABLE` when `$TEMPORAL_CLI` is not an executable
 *   file, or when no CLI is found and it cannot (or may not) be installed.
 */
export async function findTemporalCli(options: FindTemporalCliOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`[tollgate] ${line}\n`));

  const explicit = env.TEMPORAL_CLI;
  if (explicit) {
    if (await isExecutableFile(explicit)) return explicit;
    throw new TollgateError(
      'TEMPORAL_CLI_UNAVAILABLE',
      `TEMPORAL_CLI is set to "${explicit}", which is not an executable file; point it at a temporal binary or unset it.`,
    );
  }

  const onPath = await findOnPath('temporal', env);
  if (onPath) return onPath;

  const go = await findOnPath('go', env);
  const goBinDirs = await goBinDirectories(go, env);
  for (const dir of goBinDirs) {
    const candidate = join(dir, 'temporal' + EXE_SUFFIX);
    if (await isExecutableFile(candidate)) return candidate;
  }

  if (options.install === false || !go) throw unavailable(go !== undefined);
  const target = join(goBinDirs[0]!, 'temporal' + EXE_SUFFIX);
  pendingInstall ??= installCli(go, target, env, log).finally(() => {
    // Forget failures (and successes: the next lookup finds the binary) so a retry reinstalls.
    pendingInstall = undefined;
  });
  return pendingInstall;
}

function unavailable(goFound: boolean): TollgateError {
  const how = goFound
    ? `run \`go install ${TEMPORAL_CLI_PACKAGE}\``
    : `install Go (https://go.dev/dl/) and rerun, or run \`go install ${TEMPORAL_CLI_PACKAGE}\``;
  return new TollgateError(
    'TEMPORAL_CLI_UNAVAILABLE',
    `No temporal CLI found on PATH or in Go's bin directory; ${how}, or set TEMPORAL_CLI to a temporal binary.`,
  );
}

/** `$GOBIN` first (where `go install` writes when set), then the first GOPATH entry's bin. */
async function goBinDirectories(go: string | undefined, env: NodeJS.ProcessEnv): Promise<string[]> {
  let gobin = env.GOBIN ?? '';
  let gopath = env.GOPATH ?? '';
  if (go) {
    try {
      const { stdout } = await execFileAsync(go, ['env', 'GOBIN', 'GOPATH'], { env });
      const [goEnvBin = '', goEnvPath = ''] = stdout.split(/\r?\n/);
      gobin = goEnvBin.trim() || gobin;
      gopath = goEnvPath.trim() || gopath;
    } catch {
      // A broken Go install still leaves the env-derived guesses below usable.
    }
  }
  // Go's own default when GOPATH is unset.
  const firstGopath = gopath.split(delimiter)[0] || join(env.HOME ?? homedir(), 'go');
  return [...new Set([gobin, join(firstGopath, 'bin')].filter(Boolean))];
}

async function installCli(
  go: string,
  target: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<string> {
  if (await pathExists(join(CLI_MODULE, 'go.mod'))) {
    log(
      `Building the temporal CLI (${TEMPORAL_CLI_PACKAGE} with the SQLite driver of ${CLI_MODULE}go.mod) into ${target}; this takes a few minutes the first time.`,
    );
    await mkdir(dirname(target), { recursive: true });
    // GOWORK=off: a go.work above the package (a monorepo's) must not take the module over.
    const buildEnv = { ...env, GOWORK: 'off' };
    const built = await runGo(
      go,
      ['build', '-o', target, CLI_MAIN_PACKAGE],
      CLI_MODULE,
      buildEnv,
      log,
    );
    if (built.exitCode === 0 && (await isExecutableFile(target))) {
      log(`Built the temporal CLI at ${target}.`);
      return target;
    }
    log(
      `Building the temporal CLI failed (exit code ${built.exitCode}); installing the release as it is, with \`go install ${TEMPORAL_CLI_PACKAGE}\`.`,
    );
  }
  log(
    `Installing the temporal CLI with \`go install ${TEMPORAL_CLI_PACKAGE}\`; this takes a few minutes the first time.`,
  );
  const installed = await runGo(go, ['install', TEMPORAL_CLI_PACKAGE], undefined, env, log);
  if (installed.exitCode !== 0 || !(await isExecutableFile(target))) {
    throw new TollgateError(
      'TEMPORAL_CLI_UNAVAILABLE',
      `\`go install ${TEMPORAL_CLI_PACKAGE}\` failed (exit code ${installed.exitCode}); set TEMPORAL_CLI to a temporal binary instead. Last output:\n${installed.tail.join('\n')}`,
    );
  }
  log(`Installed the temporal CLI at ${target}.`);
  return target;
}

/** Runs `go` with `args` in `cwd`, passing its stderr to `log`; the exit code and the last lines. */
async function runGo(
  go: string,
  args: string[],
  cwd: string | undefined,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<{ exitCode: number | null; tail: string[] }> {
  const tail: string[] = [];
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(go, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    createInterface({ input: child.stderr }).on('line', (line) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      log(line);
    });
    child.once('error', reject);
    child.once('close', resolve);
  });
  return { exitCode, tail };
}

async function findOnPath(name: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name + EXE_SUFFIX);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
