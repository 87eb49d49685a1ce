/**
 * The primary's side of stored simulations when several HTTP processes share `memory://`: each
 * process keeps the simulations it ran (processCacheStore.ts), so a process that misses one asks
 * the primary, and the primary asks every other live process at once. The first that has it
 * answers; none, or none within `timeoutMs`, is a miss: 404, as for any id nobody knows.
 *
 * A process answers once its event loop is free: one running its engine in process (on 2 cores,
 * `PROCESSES=0` does) is busy for the whole of a run, since every await inside the EVM resolves
 * at once. So the wait is as long as the asking process's own channel allows (its asks give up
 * after 5 s, host/workers/parentCacheStore.ts): 4.5 s covers all but the longest in-process runs
 * (a one-million-step trace takes about 3 s); a simulation kept by a process busier than that is
 * answered 404, where a pool of worker threads (`WORKERS` > 1) or Redis would find it.
 */
import type { LookupReply, LookupRequest } from '../protocol.js'

export interface Sibling {
  send(msg: LookupRequest): void
}

export interface SiblingLookup {
  /** the value one of `siblings` keeps under `key`, or undefined */
  find(key: string, siblings: Sibling[]): Promise<Uint8Array | undefined>
  /** feed every process's `lookupReply` here */
  onReply(msg: LookupReply): void
}

export function createSiblingLookup(opts: { timeoutMs?: number } = {}): SiblingLookup {
  const timeoutMs = opts.timeoutMs ?? 4500
  let nextId = 0
  const pending = new Map<number, (value: Uint8Array | undefined) => void>()

  return {
    find(key, siblings) {
      if (siblings.length === 0) return Promise.resolve(undefined)
      const id = ++nextId
      return new Promise((resolve) => {
        let waiting = siblings.length
        const done = (value: Uint8Array | undefined) => {
          clearTimeout(timer)
          pending.delete(id)
          resolve(value)
        }
        const timer = setTimeout(() => done(undefined), timeoutMs)
        pending.set(id, (value) => {
          waiting -= 1
          if (value !== undefined || waiting === 0) done(value)
        })
        const msg: LookupRequest = { type: 'lookup', id, key }
        for (const s of siblings) s.send(msg)
      })
    },
    onReply(msg) {
      pending.get(msg.id)?.(msg.value)
    },
  }
}
