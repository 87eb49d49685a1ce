/**
 * Verified sources for a traced transaction or run of calls: which contracts ran is known only
 * once they have run, so the frames whose code no registered contract matched are asked of the
 * Sourcify-compatible service after the run (the registry's `resolve`). When that found a
 * contract, the transaction (or every call of the run, whose state carries from one to the next)
 * runs once more with the enlarged index, so its internal frames, lines and backtrace come out of
 * the same step observer as for a registered contract. A second trace of the same contracts finds
 * them in the index (or the cache store) before it runs and runs once.
 *
 * The service failing never fails the trace: the answer comes without those sources, and the call
 * tree's root says why in `warnings`.
 */
import { createAddressFromString } from '@ethereumjs/util'
import type { Address } from 'viem'
import type { DecodedCallFrame, DecodedInternalFrame } from '../decoding/callTree/types.js'
import type { GasProfile } from '../decoding/gasProfile/index.js'
import type { FrameSteps } from '../decoding/frameSteps/index.js'
import type { ExecutionContext } from '../execution/types.js'
import type { SourceIndex } from '../sources/types.js'
import type { TraceResult } from '../../tracers/config.js'

/** the registry's part this pass uses (engine/sources/registry.ts) */
export interface VerifiedSources {
  resolve(chainId: number, frames: { address: Address; code: Uint8Array }[]): Promise<{ index: SourceIndex; added: boolean; warnings: string[] }>
}

/** at most this many unmatched contracts are asked for per trace (a trace over many contracts stays bounded) */
const MAX_LOOKUPS = 64

/** the addresses whose frames the call trees could not name, each once */
export function unnamedAddresses(...roots: DecodedCallFrame[]): Address[] {
  const out = new Set<Address>()
  const stack: (DecodedCallFrame | DecodedInternalFrame)[] = [...roots]
  while (stack.length > 0 && out.size < MAX_LOOKUPS) {
    const f = stack.pop()!
    if (f.type !== 'INTERNAL' && !f.contract && f.to) out.add(f.to.toLowerCase() as Address)
    if (f.calls) stack.push(...f.calls)
  }
  return [...out]
}

/** the addresses a gas profile named its functions by, its code unknown (precompiles aside) */
function unnamedInProfiles(results: readonly TraceResult[]): Address[] {
  const out = new Set<Address>()
  for (const r of results)
    for (const f of (r.gasProfile as GasProfile | undefined)?.functions ?? [])
      if (f.kind !== 'internal' && f.contract.startsWith('0x') && f.function !== 'precompile') out.add(f.contract as Address)
  return [...out]
}

/** the frames stepped through whose contract no source named */
function unnamedInFrameSteps(results: readonly TraceResult[]): Address[] {
  const frames = results.map((r) => (r.frameSteps as FrameSteps | undefined)?.frame)
  return frames.filter((f) => f !== undefined && !f.contract).map((f) => f!.address)
}

/**
 * After a run: asks for the unnamed contracts' verified sources, their code read from the state
 * the run left (so contracts the run created count too). `rerun` when the index grew (the caller
 * runs again with `index`); `warnings` to hand to the answer.
 */
export async function verifiedAfterRun(
  sources: VerifiedSources,
  chainId: number,
  results: readonly TraceResult[],
  state: Pick<ExecutionContext['state'], 'getCode'>,
): Promise<{ rerun: SourceIndex | undefined; warnings: string[] }> {
  const trees = results.map((r) => r.callTree as DecodedCallFrame | undefined).filter((t) => t !== undefined)
  const addresses = [...new Set([...unnamedAddresses(...trees), ...unnamedInProfiles(results), ...unnamedInFrameSteps(results)])].slice(0, MAX_LOOKUPS)
  if (addresses.length === 0) return { rerun: undefined, warnings: [] }
  const frames = await Promise.all(addresses.map(async (address) => ({ address, code: await state.getCode(createAddressFromString(address)) })))
  const withCode = frames.filter((f) => f.code.length > 0)
  if (withCode.length === 0) return { rerun: undefined, warnings: [] }
  const { index, added, warnings } = await sources.resolve(chainId, withCode)
  return { rerun: added ? index : undefined, warnings }
}

/** the warnings on the call tree's root and on the gas profile, where both REST and JSON-RPC answers carry them */
export function withSourceWarnings<R extends TraceResult>(result: R, warnings: string[]): R {
  const tree = result.callTree as DecodedCallFrame | undefined
  const profile = result.gasProfile as GasProfile | undefined
  if (warnings.length === 0) return result
  return { ...result, ...(tree && { callTree: { ...tree, warnings } }), ...(profile && { gasProfile: { ...profile, warnings } }) }
}
