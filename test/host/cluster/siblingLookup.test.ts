/**
 * The primary's lookup of a stored simulation among the other HTTP processes
 * (host/cluster/siblingLookup.ts): every sibling is asked at once, the first that keeps the key
 * answers, and all saying no, or silence past the timeout, is a miss.
 */
import { describe, expect, it } from 'vitest'
import type { LookupRequest } from '../../../host/protocol.js'
import { createSiblingLookup } from '../../../host/cluster/siblingLookup.js'

function sibling() {
  const asked: LookupRequest[] = []
  return { asked, send: (msg: LookupRequest) => asked.push(msg) }
}

describe('finding a stored simulation in the other processes', () => {
  it('asks every sibling and takes the first that keeps it', async () => {
    const lookup = createSiblingLookup({ timeoutMs: 60_000 })
    const [a, b, c] = [sibling(), sibling(), sibling()]
    const found = lookup.find('sim:x', [a, b, c])
    expect([a, b, c].map((s) => s.asked)).toEqual([
      [{ type: 'lookup', id: 1, key: 'sim:x' }],
      [{ type: 'lookup', id: 1, key: 'sim:x' }],
      [{ type: 'lookup', id: 1, key: 'sim:x' }],
    ])
    lookup.onReply({ type: 'lookupReply', id: 1, value: undefined })
    lookup.onReply({ type: 'lookupReply', id: 1, value: Uint8Array.of(5) })
    expect(await found).toEqual(Uint8Array.of(5))
    // the third answers late: nothing is waiting for it any more
    lookup.onReply({ type: 'lookupReply', id: 1, value: Uint8Array.of(6) })
  })

  it('is a miss once every sibling said no', async () => {
    const lookup = createSiblingLookup({ timeoutMs: 60_000 })
    const found = lookup.find('sim:x', [sibling(), sibling()])
    lookup.onReply({ type: 'lookupReply', id: 1, value: undefined })
    lookup.onReply({ type: 'lookupReply', id: 1, value: undefined })
    expect(await found).toBeUndefined()
  })

  it('is a miss when a sibling stays silent past the timeout, or there is none', async () => {
    const lookup = createSiblingLookup({ timeoutMs: 50 })
    const started = Date.now()
    expect(await lookup.find('sim:x', [sibling()])).toBeUndefined()
    expect(Date.now() - started).toBeGreaterThanOrEqual(45)
    expect(await lookup.find('sim:y', [])).toBeUndefined()
  })
})
