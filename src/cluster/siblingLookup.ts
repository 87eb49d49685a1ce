/**
 * The primary's side of stored simulations when several HTTP processes share `memory://`: each
 * process keeps the simulations it ran (processCacheStore.ts), so a process that misses one asks
 * the primary, and the primary asks every other live process at once. The first that has it
 * answers; none, or none within `timeoutMs` (a process gone quiet), is a miss: 404, as for any id
 * nobody knows.
 */
/** primary → process: "do you keep this key?" */
export interface LookupRequest {
  type: 'lookup'
  id: number
  key: string
}
/** process → primary: its answer (undefined: not here) */
export interface LookupReply {
  type: 'lookupReply'
  id: number
  value: Uint8Array | undefined
}

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
  const timeoutMs = opts.timeoutMs ?? 2000
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
