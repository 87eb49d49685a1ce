/**
 * The prefetch policy's decisions, asked directly: when a run is cold (its block and the calls'
 * access-list hints asked in one batch) and when it is warm (the block alone, then what is held),
 * and how a warm run reads once its block resolved. The head tracker it guesses from, alongside.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Address, Hex } from 'viem'
import { HEAD_FRESH_MS, HeadTracker } from '../../../../engine/chains/remote/headTracker.js'
import { namedAccounts, planRun, warmRead, type PrefetchView } from '../../../../engine/chains/remote/prefetchPolicy.js'
import type { BlockHeaderInfo, PrefetchCalls } from '../../../../engine/chains/types.js'

const FROM = '0x00000000000000000000000000000000000000AA' as Address
const TO = '0x00000000000000000000000000000000000000bB' as Address
const calls: PrefetchCalls = [{ from: FROM, to: TO, data: '0x' }]

/** a view holding hints at `hints` and every account at `accounts`, recording what it was asked */
function viewOf(v: { tracked?: bigint; recent?: bigint; hints?: bigint[]; accounts?: bigint[] }) {
  const asked: string[] = []
  const view: PrefetchView = {
    trackedHead: v.tracked,
    recentHead: v.recent,
    hintsHeld: (b) => (asked.push(`hints@${b}`), (v.hints ?? []).includes(b)),
    holdsAccounts: (b, accounts) => (asked.push(`accounts@${b}:${accounts.join(',')}`), (v.accounts ?? []).includes(b)),
  }
  return { view, asked }
}

describe('prefetch policy: cold or warm', () => {
  it('a run with no calls is warm, wherever it runs', () => {
    expect(planRun({ tag: 'latest' }, [], viewOf({}).view)).toEqual({ guess: undefined, warm: true })
    expect(planRun({ number: 7n }, [], viewOf({}).view)).toEqual({ guess: 7n, warm: true })
  })

  it('at a number: warm by the hint held there, else by every named account held there, else cold', () => {
    expect(planRun({ number: 10n }, calls, viewOf({ hints: [10n] }).view)).toEqual({ guess: 10n, warm: true })
    const byAccounts = viewOf({ accounts: [10n] })
    expect(planRun({ number: 10n }, calls, byAccounts.view)).toEqual({ guess: 10n, warm: true })
    // the accounts asked are the calls' senders and targets, lower-case
    expect(byAccounts.asked).toEqual([`hints@10`, `accounts@10:${FROM.toLowerCase()},${TO.toLowerCase()}`])
    expect(planRun({ number: 10n }, calls, viewOf({ hints: [9n], accounts: [11n] }).view)).toEqual({ guess: 10n, warm: false })
  })

  it('at latest with a tracked head: guessed at it, and held accounts count (the block is fixed)', () => {
    expect(planRun({ tag: 'latest' }, calls, viewOf({ tracked: 20n, recent: 21n, accounts: [20n] }).view)).toEqual({ guess: 20n, warm: true })
  })

  it('at latest with only a recent head: guessed at it, warm only by a held hint (the head may move)', () => {
    expect(planRun({ tag: 'latest' }, calls, viewOf({ recent: 30n, hints: [30n] }).view)).toEqual({ guess: 30n, warm: true })
    const v = viewOf({ recent: 30n, accounts: [30n] })
    expect(planRun({ tag: 'latest' }, calls, v.view)).toEqual({ guess: 30n, warm: false })
    expect(v.asked).toEqual(['hints@30'])
  })

  it('at latest with no head known, or at another tag: cold, nothing asked', () => {
    const v = viewOf({ hints: [0n], accounts: [0n] })
    expect(planRun({ tag: 'latest' }, calls, v.view)).toEqual({ guess: undefined, warm: false })
    expect(planRun({ tag: 'safe' }, calls, viewOf({ tracked: 5n, recent: 5n, hints: [5n] }).view)).toEqual({ guess: undefined, warm: false })
    expect(v.asked).toEqual([])
  })

  it('names senders, and targets when there are any', () => {
    expect(
      namedAccounts([
        { from: FROM, to: null, data: '0x' },
        { from: TO, to: FROM, data: '0x' },
      ]),
    ).toEqual([FROM.toLowerCase(), TO.toLowerCase(), FROM.toLowerCase()] as Hex[])
  })
})

describe('prefetch policy: a warm run once its block resolved', () => {
  it('at the guessed block: by the hint held there, else by its accounts alone', () => {
    expect(warmRead(10n, 10n, calls, viewOf({ hints: [10n] }).view)).toBe('hinted')
    expect(warmRead(10n, 10n, calls, viewOf({}).view)).toBe('accounts')
  })

  it('past the guessed block: the hints held at the guess are reused, else asked', () => {
    expect(warmRead(11n, 10n, calls, viewOf({ hints: [10n] }).view)).toBe('moved')
    expect(warmRead(11n, 10n, calls, viewOf({}).view)).toBe('ask')
    expect(warmRead(11n, undefined, calls, viewOf({ hints: [11n] }).view)).toBe('ask')
  })
})

describe('head tracker', () => {
  afterEach(() => vi.useRealTimers())
  const header = (n: bigint) => ({ number: n }) as BlockHeaderInfo

  it('rises with any header, tracks the newest latest for its age, and forgets it', () => {
    vi.useFakeTimers({ now: 1_000_000 })
    const head = new HeadTracker(500)
    head.saw(5n)
    head.saw(3n)
    expect(head.number).toBe(5n)
    expect(head.depthOf(2n)).toBe(3n)
    expect(head.latest()).toBeUndefined()
    expect(head.recent()).toBeUndefined()
    head.sawLatest(header(8n))
    expect(head.latest()?.number).toBe(8n)
    expect(head.recent()).toBe(8n)
    // a lower latest (a dev chain reverted) is tracked; the highest head seen stays
    head.sawLatest(header(6n))
    expect(head.latest()?.number).toBe(6n)
    expect(head.number).toBe(8n)
    vi.advanceTimersByTime(500)
    expect(head.latest()).toBeUndefined()
    expect(head.recent()).toBe(8n)
    vi.advanceTimersByTime(HEAD_FRESH_MS)
    expect(head.recent()).toBeUndefined()
    expect(head.forget()).toBe(true)
    expect(head.forget()).toBe(false)
  })

  it('with an age of 0 tracks nothing', () => {
    const head = new HeadTracker(0)
    head.sawLatest(header(4n))
    expect(head.latest()).toBeUndefined()
    expect(head.forget()).toBe(false)
    expect(head.recent()).toBe(4n)
  })
})
