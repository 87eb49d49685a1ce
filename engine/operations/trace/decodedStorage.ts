/**
 * prestateTracer's diff told by variable: beside geth's unchanged `pre` and `post`, `decoded`
 * holds, for each account whose contract's storage layout is known, its changed slots as
 * Solidity variables (engine/sources/storageLayout). A proxy's storage is read with the layout of
 * the implementation its EIP-1967 slot names. Nothing is added when no account's layout is known,
 * and nothing more runs when no source is registered.
 */
import { createAddressFromString } from '@ethereumjs/util'
import { type Address, type Hex, hexToBytes } from 'viem'
import { createKeccakPreimages } from '../../execution/observers/keccakPreimages.js'
import type { ExecutionContext } from '../../execution/types.js'
import { type DecodedChange, decodeChanges, EIP1967_SLOTS, layoutAt, Preimages, slotHex } from '../../sources/storageLayout/index.js'
import type { SourceIndex } from '../../sources/types.js'
import type { TracerConfig } from '../../types.js'
import type { TraceSet } from './traceSet.js'

type Storage = Record<Hex, Hex>
interface DiffResult {
  pre: Record<Address, { storage?: Storage }>
  post: Record<Address, { storage?: Storage }>
  decoded?: Record<Address, DecodedChange[]>
}

/** the set with a preimage observer and `decoded` added, when a diff is asked for and sources are known */
export function withDecodedStorage(set: TraceSet, config: TracerConfig, sources: SourceIndex | undefined): TraceSet {
  if (!config.prestateTracer?.diffMode || config.prestateTracer.disableStorage || !sources || sources.empty) return set
  const preimages = createKeccakPreimages()
  return {
    tracers: [...set.tracers, preimages],
    async result(ctx, execute) {
      const out = await set.result(ctx, execute)
      const diff = out.prestateTracer as DiffResult | undefined
      if (diff?.pre && diff.post) {
        const decoded = await decodeDiff(diff, new Preimages(preimages.result()), sources, ctx)
        if (Object.keys(decoded).length > 0) out.prestateTracer = { ...diff, decoded }
      }
      return out
    },
  }
}

async function decodeDiff(diff: DiffResult, preimages: Preimages, sources: SourceIndex, ctx: ExecutionContext): Promise<Record<Address, DecodedChange[]>> {
  const decoded: Record<Address, DecodedChange[]> = {}
  const addresses = new Set([...Object.keys(diff.pre), ...Object.keys(diff.post)] as Address[])
  for (const address of addresses) {
    const [pre, post] = [diff.pre[address]?.storage ?? {}, diff.post[address]?.storage ?? {}]
    const changed = [...new Set([...Object.keys(pre), ...Object.keys(post)])].map((s) => BigInt(s))
    if (changed.length === 0) continue
    const read = async (slot: bigint) => BigInt(bytesToHexWord(await ctx.state.getStorage(createAddressFromString(address), hexToBytes(slotHex(slot) as Hex))))
    const layout = await layoutAt(address, sources, ctx.state)
    if (!layout && !changed.some((s) => EIP1967_SLOTS[slotHex(s)])) continue
    // the state is the one the transaction left: a slot the diff omits from `post` was cleared, one it omits from both did not change
    const reader = async (slot: bigint, when: 'before' | 'after') => {
      const key = slotHex(slot) as Hex
      if (when === 'before') return key in pre ? BigInt(pre[key]) : key in post ? 0n : read(slot)
      return key in post ? BigInt(post[key]) : key in pre ? 0n : read(slot)
    }
    decoded[address] = await decodeChanges(layout, changed, preimages, reader)
  }
  return decoded
}

const bytesToHexWord = (b: Uint8Array): Hex => (b.length === 0 ? '0x0' : `0x${Buffer.from(b).toString('hex')}`)
