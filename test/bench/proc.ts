import { readdirSync, readFileSync } from 'node:fs';

/** Resident memory of a process, from /proc (Linux). */
export function residentMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** CPU time (user + system, every thread) a process has used so far, in seconds, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name; in clock ticks (100/s on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Processes whose command line (as the process shows it: PostgreSQL backends retitle themselves
 * "postgres: <user> <database> <client> <state>") contains `needle`, from /proc (Linux).
 */
export function pidsWhoseCommandLineHas(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(needle)) pids.push(Number(entry));
    } catch {
      // Gone since the listing, or not ours to read.
    }
  }
  return pids;
}
