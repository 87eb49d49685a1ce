/**
 * Which worker takes the next call: the least busy by the calls it computes (a call waiting on
 * the upstream holds no place under the cap), so a long trace occupies one worker while short
 * simulations flow through the others.
 */
import { isServing, type Slot } from './poolJobs.js'

/** the calls a worker computes: those it holds but the ones waiting on the upstream */
export const computing = (s: Slot) => s.inflight.size - s.waiting

/** dispatch number of a worker's longest-running computing call (ids grow with time; Infinity when none) */
function oldestStart(s: Slot): number {
  let oldest = Infinity
  for (const [id, job] of s.inflight) if (!job.waiting && id < oldest) oldest = id
  return oldest
}

/**
 * `s` is less busy than `best`: fewer computing calls; between equals, the one whose oldest
 * computing call started last (a call that has run long is likely a CPU-bound trace holding its
 * thread, and a new call behind it would wait), then the one holding fewer calls in all.
 */
export function lessBusy(s: Slot, best: Slot): boolean {
  const c = computing(s)
  const b = computing(best)
  if (c !== b) return c < b
  if (c > 0) {
    const o = oldestStart(s)
    const ob = oldestStart(best)
    if (o !== ob) return o > ob
  }
  return s.inflight.size < best.inflight.size
}

/** the least busy serving worker, whatever its load (health probes bypass the caps) */
export function leastBusy(slots: readonly (Slot | undefined)[]): Slot | undefined {
  let best: Slot | undefined
  for (const s of slots) if (isServing(s) && (!best || lessBusy(s, best))) best = s
  return best
}

/**
 * The least-busy ready worker under its cap of computing calls and its bound of calls held,
 * looking from `from` on: the caller moves `from` past the worker picked, so idle ties rotate
 * and workers share the load.
 */
export function pickSlot(slots: readonly (Slot | undefined)[], from: number, maxComputing: number, maxHeld: number): Slot | undefined {
  const size = slots.length
  let best: Slot | undefined
  for (let k = 0; k < size; k++) {
    const s = slots[(from + k) % size]
    if (!isServing(s) || computing(s) >= maxComputing || s.inflight.size >= maxHeld) continue
    if (!best || lessBusy(s, best)) best = s
  }
  return best
}
