import { cpuSeconds } from './proc.js';
import type { CpuPerUnit, CpuProbe } from './types.js';

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
  return probe ? startCpuWindow(probe.pid, probe.unit, probe.whose ?? 'server') : undefined;
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
