import { access } from 'node:fs/promises';

/** Whether anything exists at `path` (a file or a directory). Not for workflow code. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
