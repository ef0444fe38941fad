/**
 * Debian's chromium for the browser tests, driven by playwright-core: installed on first use
 * (a fresh machine) and launched headless with a fresh, temporary user-data dir.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
/** The repository root: this file is compiled to dist/test/support/, three levels below it. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const BASE_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'];

/** Installs chromium when missing (scripts/install-chromium.sh: apt-get can take minutes). */
async function ensureChromium(): Promise<void> {
  if (existsSync(CHROMIUM)) return;
  await promisify(execFile)('sh', [join(REPO_ROOT, 'scripts/install-chromium.sh')], {
    timeout: 15 * 60_000,
  });
}

/** Installs chromium if needed and launches it headless, with `extraArgs` after the base flags. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  await ensureChromium();
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...BASE_ARGS, ...extraArgs],
  });
}
