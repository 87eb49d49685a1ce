/**
 * Verified sources for a traced transaction: which contracts ran is known only once it has run,
 * so the frames whose code no registered contract matched are asked of the Sourcify-compatible
 * service after the run (the registry's `resolve`). When that found a contract, the transaction
 * runs once more with the enlarged index, so its internal frames, lines and backtrace come out of
 * the same step observer as for a registered contract. A second trace of the same contracts finds
 * them in the index (or the cache store) before it runs and runs once.
 *
 * The service failing never fails the trace: the answer comes without those sources, and the call
 * tree's root says why in `warnings`.
 */
import { createAddressFromString } from '@ethereumjs/util'
import type { Address } from 'viem'
import type { DecodedCallFrame, DecodedInternalFrame } from '../../decoding/callTree/types.js'
import type { ExecutionContext } from '../../execution/types.js'
import type { SourceIndex } from '../../sources/types.js'
import type { TraceResult } from '../../types.js'

/** the registry's part this pass uses (engine/sources/registry.ts) */
export interface VerifiedSources {
  resolve(chainId: number, frames: { address: Address; code: Uint8Array }[]): Promise<{ index: SourceIndex; added: boolean; warnings: string[] }>
}

/** at most this many unmatched contracts are asked for per trace (a trace over many contracts stays bounded) */
const MAX_LOOKUPS = 64

/** the addresses whose frames the call tree could not name, each once */
export function unnamedAddresses(root: DecodedCallFrame): Address[] {
  const out = new Set<Address>()
  const stack: (DecodedCallFrame | DecodedInternalFrame)[] = [root]
  while (stack.length > 0 && out.size < MAX_LOOKUPS) {
    const f = stack.pop()!
    if (f.type !== 'INTERNAL' && !f.contract && f.to) out.add(f.to.toLowerCase() as Address)
    if (f.calls) stack.push(...f.calls)
  }
  return [...out]
}

/**
 * After a run: asks for the unnamed contracts' verified sources. `rerun` when the index grew (the
 * caller runs the transaction again with `index`); `warnings` to hand to the answer.
 */
export async function verifiedAfterRun(
  sources: VerifiedSources,
  chainId: number,
  result: TraceResult,
  ctx: ExecutionContext,
): Promise<{ rerun: SourceIndex | undefined; warnings: string[] }> {
  const tree = result.callTree as DecodedCallFrame | undefined
  if (!tree) return { rerun: undefined, warnings: [] }
  const addresses = unnamedAddresses(tree)
  if (addresses.length === 0) return { rerun: undefined, warnings: [] }
  const frames = await Promise.all(addresses.map(async (address) => ({ address, code: await ctx.state.getCode(createAddressFromString(address)) })))
  const withCode = frames.filter((f) => f.code.length > 0)
  if (withCode.length === 0) return { rerun: undefined, warnings: [] }
  const { index, added, warnings } = await sources.resolve(chainId, withCode)
  return { rerun: added ? index : undefined, warnings }
}

/** the warnings on the call tree's root, where both REST and JSON-RPC answers carry them */
export function withSourceWarnings(result: TraceResult, warnings: string[]): TraceResult {
  const tree = result.callTree as DecodedCallFrame | undefined
  if (!tree || warnings.length === 0) return result
  return { ...result, callTree: { ...tree, warnings } }
}
