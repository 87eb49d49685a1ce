/**
 * The fork store of an engine that must not hold forks: one of several HTTP processes on
 * memory://, where each process would keep forks of its own and a fork created through one
 * process would be unknown to the next request's. Every use answers FORKS_UNAVAILABLE with what
 * to change, so no fork is ever made that half the requests cannot see.
 */
import { EngineError } from '../../platform/errors.js'
import type { ForkStore } from './types.js'

export function createUnavailableForkStore(reason: string): ForkStore {
  const refuse = async (): Promise<never> => {
    throw new EngineError(
      'FORKS_UNAVAILABLE',
      reason,
      undefined,
      'set CACHE_URL=redis://… so every process serves every fork (docs/forks.md), or run one HTTP process (PROCESSES=1)',
    )
  }
  return { read: refuse, readBlocks: refuse, commit: refuse, create: refuse, touch: refuse, delete: refuse, list: refuse, count: refuse, async close() {} }
}
