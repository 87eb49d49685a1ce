/**
 * Records the contracts a transaction really created (CREATE/CREATE2 frames that did not revert,
 * at any depth). The simulation needs it to know whether its state still equals the block's at
 * every address: a token created inside a simulation may hold other code in the next one, so its
 * metadata must not be shared through the cache store.
 *
 * @example
 * const creations = createCreationsTracer()
 * await execute(ctx, call, { tracers: [creations] })
 * const shareable = creations.result().length === 0
 */
import type { Address } from 'viem'
import type { EnterEvent, ExitEvent, Tracer } from '../../tracers/types.js'

export interface CreationsTracer extends Tracer<Address[]> {
  onEnter(e: EnterEvent): void
  onExit(e: ExitEvent): void
}

export function createCreationsTracer(): CreationsTracer {
  // per open frame: what it and its finished children created
  const frames: Address[][] = []
  const done: Address[] = []
  const open: (Address | undefined)[] = []
  return {
    onEnter(e) {
      frames.push([])
      open.push(e.type === 'CREATE' || e.type === 'CREATE2' ? (e.to.toLowerCase() as Address) : undefined)
    },
    onExit(e) {
      const bucket = frames.pop()
      const created = open.pop()
      if (!bucket || e.reverted) return
      if (created) bucket.unshift(created)
      ;(frames.at(-1) ?? done).push(...bucket)
    },
    result() {
      return [...done]
    },
  }
}
