/**
 * The pool's call timeout counts from when a call was asked: a call whose time runs out while it
 * waits for a worker (its HTTP request has been answered 504 by then) is refused without running,
 * and the calls a stopped worker held are run again elsewhere only if they have time left — a
 * rerun with none would only cost another worker.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { ON_CHAIN, type RunAt } from '../../../engine/types.js'
import type { WorkerPoolEngine } from '../../../host/workers/index.js'
import { startFixturePool } from './fixtures.js'

const TIMEOUT_MS = 400
const opened: WorkerPoolEngine[] = []
afterEach(async () => {
  for (const p of opened.splice(0)) await p.close()
})

async function pool(maxConcurrentPerWorker: number): Promise<WorkerPoolEngine> {
  const p = await startFixturePool('busyEngine.ts', { maxConcurrentPerWorker, callTimeoutMs: TIMEOUT_MS })
  opened.push(p)
  return p
}

/** the stopped call's worker has been replaced and the new one has started (a call asked before would spend its time waiting for it) */
async function workerReady(p: WorkerPoolEngine): Promise<void> {
  for (let i = 0; i < 300 && !p.stats().workers.every((w) => w.ready && w.inflight === 0); i++) await new Promise((r) => setTimeout(r, 50))
}

const busy = (p: WorkerPoolEngine, busyMs: number, tag: string) =>
  (p.call as unknown as (at: RunAt, a: unknown) => Promise<unknown>)(ON_CHAIN, { busyMs, tag }).then(
    (v) => ({ ok: v }),
    (e: { code?: string; message?: string }) => ({ code: e.code, message: e.message }),
  )

describe('call deadlines in the worker pool', () => {
  it('refuses a queued call whose time ran out while it waited, without running it', async () => {
    const p = await pool(1)
    const runaway = busy(p, 5 * TIMEOUT_MS, 'runaway')
    const queued = busy(p, 1, 'queued')
    expect(await runaway).toEqual({ code: 'EXECUTION_TIMEOUT', message: `call ran longer than ${TIMEOUT_MS} ms and was stopped` })
    expect(await queued).toEqual({ code: 'EXECUTION_TIMEOUT', message: `call waited longer than ${TIMEOUT_MS} ms for a worker and was not run` })
    // the replaced worker serves the next call
    await workerReady(p)
    expect(await busy(p, 1, 'next')).toEqual({ ok: { ran: 'next' } })
  }, 30_000)

  it("does not rerun a stopped worker's other calls that have no time left", async () => {
    const p = await pool(2)
    const t0 = performance.now()
    const settled = (x: Promise<unknown>) => x.then((v) => ({ v, at: performance.now() - t0 }))
    const [a, b] = await Promise.all([settled(busy(p, 5 * TIMEOUT_MS, 'a')), settled(busy(p, 5 * TIMEOUT_MS, 'b'))])
    expect(a.v).toEqual({ code: 'EXECUTION_TIMEOUT', message: `call ran longer than ${TIMEOUT_MS} ms and was stopped` })
    expect(b.v).toEqual({ code: 'EXECUTION_TIMEOUT', message: `call ran longer than ${TIMEOUT_MS} ms and was stopped` })
    // both end with the worker they shared, not one after a rerun on its replacement
    expect(Math.abs(a.at - b.at)).toBeLessThan(TIMEOUT_MS / 2)
    expect(p.stats().queued).toBe(0)
    await workerReady(p)
    expect(await busy(p, 1, 'next')).toEqual({ ok: { ran: 'next' } })
  }, 30_000)
})
