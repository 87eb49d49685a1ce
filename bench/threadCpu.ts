/**
 * CPU time (user + system, ms) a process's main thread — or, with `all`, the whole process, its
 * worker and GC threads included — has used so far, from /proc (Linux). Per-request CPU is a
 * mean over a run, so it counts what a latency median hides (GC pauses, slow outliers).
 */
import { readFileSync } from 'node:fs'

const CLOCK_TICKS = 100

export function cpuMs(pid: number = process.pid, all = false): number {
  const stat = readFileSync(all ? `/proc/${pid}/stat` : `/proc/${pid}/task/${pid}/stat`, 'utf8')
  // the fields after the command name (which may hold spaces): utime and stime are the 12th and 13th
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
}
