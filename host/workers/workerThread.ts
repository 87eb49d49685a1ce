/**
 * Starts one worker thread of the pool: its engine options, its own stop flags (shared memory
 * the pool sets and its runs read), its own directory of temporary files (each start a fresh
 * one, removed when it exits), and its heap bound.
 */
import { Worker } from 'node:worker_threads'
import { newSpillOwner } from '../../engine/platform/spill/spillFiles.js'
import { newSlot, type Slot } from './poolJobs.js'
import type { PoolSettings } from './poolSettings.js'

/**
 * The worker at `index`, not yet ready. `knownChainId`: the chain id an earlier worker learnt, so
 * a replacement starts without asking the upstream (one replaced while the upstream is silent
 * would otherwise fail to start until it answers again).
 */
export function startWorkerThread(settings: PoolSettings, index: number, knownChainId: number | undefined): Slot {
  const { setup, entry, stopFlagCount, workerMaxHeapMb } = settings
  const spill = setup.engine.spill && { ...setup.engine.spill, owner: newSpillOwner(`w${index}`) }
  const stopFlags = new SharedArrayBuffer(stopFlagCount * Int32Array.BYTES_PER_ELEMENT)
  const engine = { ...setup.engine, ...(spill && { spill }), ...(knownChainId !== undefined && setup.engine.rpcUrl && { knownChainId }) }
  const worker = new Worker(entry.script, {
    workerData: { ...setup, stopFlags, engine },
    eval: entry.eval,
    ...(workerMaxHeapMb && { resourceLimits: { maxOldGenerationSizeMb: workerMaxHeapMb } }),
  })
  return newSlot(index, worker, stopFlags, spill?.owner)
}
