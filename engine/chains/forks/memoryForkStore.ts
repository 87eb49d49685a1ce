/**
 * memory:// forks: kept in this process only (never evicted, gone when the process ends). Values
 * are kept as JSON text, as Redis keeps them, so both stores go through the same encoding.
 */
import { storedBlockJson, type ForkRecord, type ForkStore, type StoredBlock, type StoredFork } from './types.js'

interface Entry {
  record: string
  version: number
  expiresAt: number
  blocks: Map<string, string>
}

export function createMemoryForkStore(now: () => number = Date.now): ForkStore {
  const forks = new Map<string, Entry>()
  const live = (id: string): Entry | undefined => {
    const e = forks.get(id)
    if (e && e.expiresAt <= now()) {
      forks.delete(id)
      return undefined
    }
    return e
  }
  const stored = (e: Entry): StoredFork => ({ record: JSON.parse(e.record) as ForkRecord, expiresAt: e.expiresAt })
  return {
    async read(id) {
      const e = live(id)
      return e && stored(e)
    },
    async readBlocks(id, numbers) {
      const e = live(id)
      return numbers.map((n) => {
        const b = e?.blocks.get(n.toString())
        return b === undefined ? undefined : (JSON.parse(b) as StoredBlock)
      })
    },
    async commit(id, expected, record, blocks) {
      const e = live(id)
      if (expected === null ? e !== undefined : e?.version !== expected) return false
      const entry = e ?? { record: '', version: 0, expiresAt: 0, blocks: new Map<string, string>() }
      entry.record = JSON.stringify(record)
      entry.version = record.version
      entry.expiresAt = now() + record.ttlSeconds * 1000
      for (const b of blocks) entry.blocks.set(BigInt(b.number).toString(), storedBlockJson(b))
      forks.set(id, entry)
      return true
    },
    async create(id, record, maxForks) {
      // one synchronous check and write: nothing else runs in between in this process
      if (live(id)) return 'taken'
      if ([...forks.keys()].filter((k) => live(k)).length >= maxForks) return 'full'
      forks.set(id, { record: JSON.stringify(record), version: record.version, expiresAt: now() + record.ttlSeconds * 1000, blocks: new Map() })
      return 'created'
    },
    async touch(id, ttlSeconds) {
      const e = live(id)
      if (!e) return undefined
      e.expiresAt = now() + ttlSeconds * 1000
      return e.expiresAt
    },
    async delete(id) {
      return live(id) !== undefined && forks.delete(id)
    },
    async list() {
      return [...forks.keys()].flatMap((id) => {
        const e = live(id)
        return e ? [stored(e)] : []
      })
    },
    async count() {
      return [...forks.keys()].filter((id) => live(id)).length
    },
    async close() {},
  }
}
