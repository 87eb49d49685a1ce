/**
 * The pool's cap counts computing calls only: a call whose worker says it waits on the upstream
 * (RunStop.onUpstreamWait → `upstreamWait`) frees its place for a queued call, while the calls one
 * worker holds at once, waiting or computing, stay within their own bound (the rest wait in the
 * queue). Real worker threads, an engine module that waits the way an upstream read does.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { ON_CHAIN, type RunAt } from '../../../engine/types.js'
import type { WorkerPoolEngine } from '../../../host/workers/index.js'
import { startFixturePool } from './fixtures.js'

const WAIT_MS = 3000
const opened: WorkerPoolEngine[] = []
afterEach(async () => {
  for (const p of opened.splice(0)) await p.close()
})

async function pool(maxConcurrentPerWorker: number, maxCallsHeldPerWorker: number): Promise<WorkerPoolEngine> {
  const p = await startFixturePool('upstreamWaitEngine.ts', { maxConcurrentPerWorker, maxCallsHeldPerWorker })
  opened.push(p)
  return p
}

const call = (p: WorkerPoolEngine, params: { waitMs?: number; busyMs?: number; tag: string }) =>
  (p.call as unknown as (at: RunAt, a: unknown) => Promise<{ ran: string }>)(ON_CHAIN, params)

async function until(what: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 10))
  expect(what()).toBe(true)
}

describe('calls waiting on the upstream in the worker pool', () => {
  it('runs a computing call at once while more calls than the cap wait on the upstream', async () => {
    const p = await pool(2, 8)
    const t0 = performance.now()
    const waiting = Array.from({ length: 5 }, (_, i) => call(p, { waitMs: WAIT_MS, tag: `w${i}` }))
    await until(() => p.stats().workers[0]!.waiting === 5)
    expect(p.stats()).toMatchObject({ queued: 0, workers: [{ inflight: 5, waiting: 5 }] })
    // two places under the cap, none taken by the five waiting
    const computing = await Promise.all([call(p, { busyMs: 5, tag: 'c0' }), call(p, { busyMs: 5, tag: 'c1' })])
    expect(computing).toEqual([{ ran: 'c0' }, { ran: 'c1' }])
    expect(performance.now() - t0).toBeLessThan(WAIT_MS / 2)
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: 5 }, (_, i) => ({ ran: `w${i}` })))
    expect(p.stats()).toMatchObject({ queued: 0, workers: [{ inflight: 0, waiting: 0 }] })
  }, 30_000)

  it('holds no more calls per worker than its bound, waiting ones included; the rest queue', async () => {
    const p = await pool(2, 6)
    const t0 = performance.now()
    const waiting = Array.from({ length: 10 }, (_, i) => call(p, { waitMs: WAIT_MS, tag: `w${i}` }))
    await until(() => p.stats().workers[0]!.waiting === 6)
    // settled: six held (the bound), all waiting, four queued although the cap has room
    await new Promise((r) => setTimeout(r, 200))
    expect(p.stats()).toMatchObject({ queued: 4, workers: [{ inflight: 6, waiting: 6 }] })
    // a computing call asked now queues behind them: it runs once held calls end
    const late = call(p, { busyMs: 1, tag: 'late' }).then((v) => ({ v, at: performance.now() - t0 }))
    expect(p.stats().queued).toBe(5)
    const got = await late
    expect(got.v).toEqual({ ran: 'late' })
    expect(got.at).toBeGreaterThanOrEqual(WAIT_MS - 50)
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: 10 }, (_, i) => ({ ran: `w${i}` })))
    expect(p.stats()).toMatchObject({ queued: 0, workers: [{ inflight: 0, waiting: 0 }] })
  }, 30_000)

  it('counts a call whose wait ended as computing again: new calls queue while it computes', async () => {
    const p = await pool(1, 8)
    // waits, then computes for a while
    const first = call(p, { waitMs: 300, busyMs: 800, tag: 'first' })
    await until(() => p.stats().workers[0]!.waiting === 1)
    // its place is free while it waits: a second call gets it, and waits too
    const second = call(p, { waitMs: 2000, tag: 'second' })
    await until(() => p.stats().workers[0]!.waiting === 2)
    // the first computes again: it takes the one place back, so a third call queues
    await until(() => p.stats().workers[0]!.waiting === 1)
    const third = call(p, { busyMs: 1, tag: 'third' })
    expect(p.stats()).toMatchObject({ queued: 1, workers: [{ inflight: 2, waiting: 1 }] })
    expect(await first).toEqual({ ran: 'first' })
    expect(await third).toEqual({ ran: 'third' })
    expect(await second).toEqual({ ran: 'second' })
    expect(p.stats()).toMatchObject({ queued: 0, workers: [{ inflight: 0, waiting: 0 }] })
  }, 30_000)
})
