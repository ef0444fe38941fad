/** What the machine is doing: load average, and a process's memory from /proc. */
import { readFileSync } from 'node:fs';

/** `1-min 5-min 15-min` load averages, as /proc/loadavg has them. */
export function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}

/** Resident set size now (VmRSS) and its peak (VmHWM) of a process, in KiB. */
export interface ProcessMemory {
  rssKiB: number;
  hwmKiB: number;
}

export function processMemory(pid: number): ProcessMemory | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    const memory = { rssKiB: field('VmRSS'), hwmKiB: field('VmHWM') };
    return Number.isFinite(memory.rssKiB) && Number.isFinite(memory.hwmKiB) ? memory : undefined;
  } catch {
    return undefined;
  }
}

export function mib(kib: number): string {
  return `${(kib / 1024).toFixed(0)} MiB`;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
