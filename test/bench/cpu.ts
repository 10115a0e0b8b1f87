import { cpuSeconds } from './proc.js';
import type { CpuPart, CpuPerUnit, CpuProbe } from './types.js';

/**
 * CPU time of a process so far, in seconds. Another process's is read from /proc/<pid>/stat:
 * utime + stime over all its threads, live and exited, the same kernel counters that
 * process.cpuUsage() (getrusage(RUSAGE_SELF)) returns inside it, read without sending it anything
 * (10 ms ticks: under 0.2 % of any window the bench measures). This process's own comes from
 * process.cpuUsage().
 */
function cpuNow(pid: number | 'self'): number {
  if (pid !== 'self') return cpuSeconds(pid);
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** An open measuring window on one process's CPU. */
export interface CpuWindow {
  /** Closes the window: the CPU spent in it, charged to `units` units of work. */
  end(units: number, unit?: string): CpuPerUnit;
}

/** Starts measuring the CPU of `pid` (or of this process) from now. */
export function startCpuWindow(pid: number | 'self', unit: string, whose: string, scale?: 'µs' | 'ms'): CpuWindow {
  const cpu0 = cpuNow(pid);
  const t0 = performance.now();
  return {
    end(units, endUnit = unit) {
      return {
        whose,
        cpuSeconds: cpuNow(pid) - cpu0,
        windowSeconds: (performance.now() - t0) / 1000,
        units,
        unit: endUnit,
        ...(scale ? { scale } : {}),
      };
    },
  };
}

/** A probe's window, when the load run has one. */
export function probeWindow(probe: CpuProbe | undefined): CpuWindow | undefined {
  if (!probe) return undefined;
  if ('parts' in probe) return startGroupWindow(probe.parts, probe.unit, probe.whose ?? 'server');
  return startCpuWindow(probe.pid, probe.unit, probe.whose ?? 'server');
}

/**
 * Starts measuring the CPU of several processes at once: the sum, and each part over the same
 * window. A part's processes are looked up again when the window closes: one that appeared in the
 * window counts from its start (a new database connection), one that disappeared counts for nothing
 * (its last ticks are lost: a process killed in the window).
 */
export function startGroupWindow(parts: readonly CpuPart[], unit: string, whose: string): CpuWindow {
  const at0 = parts.map((part) => readEach(part.pids()));
  const t0 = performance.now();
  return {
    end(units, endUnit = unit) {
      const windowSeconds = (performance.now() - t0) / 1000;
      const measured = parts.map((part, i): CpuPerUnit => {
        let cpuSeconds = 0;
        for (const [pid, now] of readEach(part.pids())) cpuSeconds += now - (at0[i]!.get(pid) ?? 0);
        return { whose: part.whose, cpuSeconds, windowSeconds, units, unit: endUnit };
      });
      const cpuSeconds = measured.reduce((sum, part) => sum + part.cpuSeconds, 0);
      return { whose, cpuSeconds, windowSeconds, units, unit: endUnit, parts: measured };
    },
  };
}

function readEach(pids: readonly number[]): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const pid of pids) {
    try {
      cpu.set(pid, cpuSeconds(pid));
    } catch {
      // Exited: nothing to read.
    }
  }
  return cpu;
}

/** "gateway 210 µs, rt-1 120 µs, …": each part's CPU per unit, for the notes. */
export function formatCpuParts(cpu: CpuPerUnit): string {
  return (cpu.parts ?? []).map((part) => `${part.whose} ${formatCpuPerUnit(part).replace(`/${part.unit}`, '')}`).join(', ');
}

/** CPU per unit in the row's scale (µs unless ms), or null without work. */
export function cpuPerUnit(cpu: CpuPerUnit): number | null {
  if (cpu.units <= 0) return null;
  return (cpu.cpuSeconds / cpu.units) * (cpu.scale === 'ms' ? 1e3 : 1e6);
}

/** The table's cell: "38.2 µs/webhook", "0.71 ms/call-second". */
export function formatCpuPerUnit(cpu: CpuPerUnit | undefined): string {
  const value = cpu ? cpuPerUnit(cpu) : null;
  if (value === null) return '—';
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${cpu!.scale ?? 'µs'}/${cpu!.unit}`;
}

/** "server 95 % of a core": how busy the process was over the window. */
export function formatCpuLoad(cpu: CpuPerUnit): string {
  return `${cpu.whose} CPU ${((cpu.cpuSeconds / cpu.windowSeconds) * 100).toFixed(0)} % of a core`;
}

/**
 * Resolves once the processes have gone quiet: under `idleShare` of a core between them over a
 * 250 ms interval, or after `maxMs`. Work a server finishes after its responses (queued delivery,
 * status callbacks) then falls inside the CPU window that this closes, and a window opened after it
 * does not inherit a backlog from the warm-up. Returns how long it waited.
 */
export async function untilQuiet(parts: readonly CpuPart[], { idleShare = 0.1, maxMs = 15_000 } = {}): Promise<number> {
  const t0 = performance.now();
  const total = () => [...parts.flatMap((p) => [...readEach(p.pids()).values()])].reduce((a, b) => a + b, 0);
  let before = total();
  while (performance.now() - t0 < maxMs) {
    await new Promise((r) => setTimeout(r, 250));
    const now = total();
    if (now - before < 0.25 * idleShare) break;
    before = now;
  }
  return performance.now() - t0;
}
