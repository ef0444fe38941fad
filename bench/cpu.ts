/** CPU time of this process and of the dev server, to show where a step's time is spent. */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat; 100 on Linux for all common architectures. */
const CLOCK_TICKS = 100;

/** CPU time (user + system) this Node process has used, ms. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** CPU time (user + system) of another process, ms; undefined where /proc is not available. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces, start at field 3 (state).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

export interface CpuSample {
  ownMs: number;
  serverMs: number | undefined;
}

/** CPU used by this process and the server while `body` runs. */
export async function cpuDuring(serverPid: number, body: () => Promise<void>): Promise<CpuSample> {
  const own = ownCpuMs();
  const server = processCpuMs(serverPid);
  await body();
  const serverAfter = processCpuMs(serverPid);
  return {
    ownMs: ownCpuMs() - own,
    serverMs: server === undefined || serverAfter === undefined ? undefined : serverAfter - server,
  };
}
