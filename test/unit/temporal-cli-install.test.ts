/**
 * How `findTemporalCli` installs the CLI on a machine that has Go but no `temporal`: it builds the
 * CLI from this package's `devserver/` module, and installs the release as it is when that build
 * fails. Go is a script here that records how it was called and writes the binary it was asked
 * for; the real build takes minutes, and CI's machine already has a CLI.
 */
import { access, chmod, constants, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { findTemporalCli } from '../../src/devserver/index.js';

/** The repository's `devserver/`, where the package's Go module is. */
const MODULE_DIR = resolve('devserver');

/**
 * A machine with a fake `go` on an otherwise empty PATH: `go env` names `gobin`, `go build -o X`
 * writes X (or fails when `FAIL_BUILD` is set), `go install` writes `gobin/temporal`. Every call
 * is appended to `calls` as `cwd|args|GOWORK`.
 */
async function machine(failBuild: boolean) {
  const root = await mkdtemp(join(tmpdir(), 'tollgate-cli-install-'));
  const bin = join(root, 'bin');
  const gobin = join(root, 'gobin');
  const calls = join(root, 'calls');
  const script = `#!/bin/sh
echo "$PWD|$*|$GOWORK" >> "${calls}"
fake() { printf '#!/bin/sh\\necho fake temporal\\n' > "$1"; /bin/chmod +x "$1"; }
case "$1" in
  env) printf '%s\\n%s\\n' "${gobin}" "${root}/gopath" ;;
  build) if [ -n "$FAIL_BUILD" ]; then echo "go: the build failed" >&2; exit 1; fi; fake "$3" ;;
  install) /bin/mkdir -p "${gobin}"; fake "${gobin}/temporal" ;;
esac
`;
  await mkdir(bin);
  await writeFile(join(bin, 'go'), script);
  await chmod(join(bin, 'go'), 0o755);
  const env: NodeJS.ProcessEnv = {
    PATH: bin,
    HOME: root,
    ...(failBuild ? { FAIL_BUILD: '1' } : {}),
  };
  const logged: string[] = [];
  const found = await findTemporalCli({ env, log: (line) => logged.push(line) });
  const called = (await readFile(calls, 'utf8')).trim().split('\n');
  return { gobin, found, called, logged };
}

describe('findTemporalCli on a machine with Go and no CLI', () => {
  it("builds the CLI from the package's devserver module, with the newer SQLite driver", async () => {
    const { gobin, found, called, logged } = await machine(false);
    expect(found).toBe(join(gobin, 'temporal'));
    await access(found, constants.X_OK);
    expect(called.filter((call) => !call.includes('|env '))).toEqual([
      `${MODULE_DIR}|build -o ${join(gobin, 'temporal')} github.com/temporalio/cli/cmd/temporal|off`,
    ]);
    expect(logged.at(-1)).toBe(`Built the temporal CLI at ${found}.`);
    // The module it builds from pins the CLI release and raises its SQLite driver past both of
    // the driver's bugs: the leaked statement (fixed in v1.40.1) and the in-memory database
    // thrown away after a cancelled query (brought by v1.44.3, fixed in v1.51.0).
    const goMod = await readFile(join(MODULE_DIR, 'go.mod'), 'utf8');
    expect(goMod).toContain('tool github.com/temporalio/cli/cmd/temporal');
    expect(goMod).toMatch(/github\.com\/temporalio\/cli v1\.5\.1\b/);
    const sqlite = /modernc\.org\/sqlite v1\.(\d+)\.\d+/.exec(goMod);
    expect(Number(sqlite?.[1])).toBeGreaterThanOrEqual(51);
  });

  it('installs the release as it is when the build fails, and says so', async () => {
    const { gobin, found, called, logged } = await machine(true);
    expect(found).toBe(join(gobin, 'temporal'));
    expect(called.filter((call) => !call.includes('|env '))).toEqual([
      `${MODULE_DIR}|build -o ${join(gobin, 'temporal')} github.com/temporalio/cli/cmd/temporal|off`,
      expect.stringMatching(/\|install github\.com\/temporalio\/cli\/cmd\/temporal@v1\.5\.1\|$/),
    ]);
    expect(logged).toContain('go: the build failed');
    expect(logged.join('\n')).toContain('Building the temporal CLI failed (exit code 1)');
    expect(logged.at(-1)).toBe(`Installed the temporal CLI at ${found}.`);
  });
});
