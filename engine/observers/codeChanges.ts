/**
 * Records the addresses whose code a transaction really changed: contracts created (CREATE/CREATE2
 * frames that did not revert, at any depth), accounts that self-destructed, and EIP-7702
 * authorities (their delegation designator is code). The simulation needs it to know whether its
 * state still shows the block's code at every address: a token created inside one simulation may
 * hold other code in the next, so its metadata must not be shared through the cache store.
 *
 * @example
 * const codeChanges = createCodeChangesTracer()
 * await execute(ctx, call, { tracers: [codeChanges] })
 * const shareable = codeChanges.result().length === 0
 */
import type { Address } from 'viem'
import type { EnterEvent, ExitEvent, Tracer, TxContext } from '../../tracers/types.js'

export interface CodeChangesTracer extends Tracer<Address[]> {
  onTxStart(ctx: TxContext): void
  onEnter(e: EnterEvent): void
  onExit(e: ExitEvent): void
}

export function createCodeChangesTracer(): CodeChangesTracer {
  // per open frame: what it and its finished children changed
  const frames: Address[][] = []
  const open: (Address | undefined)[] = []
  const done = new Set<Address>()
  return {
    onTxStart(ctx) {
      // a 7702 authorization is applied even when the call itself reverts
      for (const a of ctx.authorities) done.add(a.toLowerCase() as Address)
    },
    onEnter(e) {
      frames.push([])
      const changed = e.type === 'CREATE' || e.type === 'CREATE2' ? e.to : e.type === 'SELFDESTRUCT' ? e.from : undefined
      open.push(changed?.toLowerCase() as Address | undefined)
    },
    onExit(e) {
      const bucket = frames.pop()
      const changed = open.pop()
      if (!bucket || e.reverted) return
      if (changed) bucket.unshift(changed)
      const parent = frames.at(-1)
      if (parent) parent.push(...bucket)
      else for (const a of bucket) done.add(a)
    },
    result() {
      return [...done]
    },
  }
}
