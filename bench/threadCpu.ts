/**
 * CPU time (user + system, ms) a process's main thread — or, with `all`, the whole process, its
 * worker and GC threads included — has used so far, from /proc (Linux). Per-request CPU is a
 * mean over a run, so it counts what a latency median hides (GC pauses, slow outliers).
 */
import { readdirSync, readFileSync } from 'node:fs'

const CLOCK_TICKS = 100

export function cpuMs(pid: number = process.pid, all = false): number {
  const stat = readFileSync(all ? `/proc/${pid}/stat` : `/proc/${pid}/task/${pid}/stat`, 'utf8')
  // the fields after the command name (which may hold spaces): utime and stime are the 12th and 13th
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
}

/** CPU time (ms) of a process and every process it started (the HTTP processes of PROCESSES), from /proc */
export function processTreeCpuMs(pid: number): number {
  let total = 0
  for (const p of processTree(pid)) {
    try {
      total += cpuMs(p, true)
    } catch {
      // it exited meanwhile
    }
  }
  return total
}

function processTree(root: number): number[] {
  const parentOf = new Map<number, number>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      // gone
    }
  }
  const tree = [root]
  for (let i = 0; i < tree.length; i++) for (const [pid, parent] of parentOf) if (parent === tree[i]) tree.push(pid)
  return tree
}
