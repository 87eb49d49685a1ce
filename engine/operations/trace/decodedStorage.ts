/**
 * prestateTracer's diff told by variable: beside geth's unchanged `pre` and `post`, `decoded`
 * holds, for each account whose contract's storage layout is known, its changed slots as
 * Solidity variables (engine/sources/storageLayout). A proxy's storage is read with the layout of
 * the implementation its EIP-1967 slot names. With a verified-sources service configured, the
 * changed accounts' code is looked up there too. Nothing is added when no account's layout is
 * known, and nothing more runs when no source is registered and no service is configured.
 */
import { createAddressFromString } from '@ethereumjs/util'
import { type Address, bytesToHex, getAddress, type Hex, hexToBytes } from 'viem'
import { createKeccakPreimages } from '../../execution/observers/keccakPreimages.js'
import type { ExecutionContext } from '../../execution/types.js'
import { type DecodedChange, decodeAccounts, EIP1967_SLOTS, Preimages, type SlotChanges } from '../../sources/storageLayout/index.js'
import type { SourceIndex } from '../../sources/types.js'
import type { TracerConfig } from '../../types.js'
import type { TraceSet } from './traceSet.js'

type Storage = Record<Hex, Hex>
interface DiffResult {
  pre: Record<Address, { storage?: Storage }>
  post: Record<Address, { storage?: Storage }>
  decoded?: Record<Address, DecodedChange[]>
}

const IMPLEMENTATION_SLOT = Object.keys(EIP1967_SLOTS)[0] as Hex

/** more of the contracts known: the index grown by the verified sources of the given code (a Sourcify-compatible service) */
export type SourceLookup = (frames: { address: Address; code: Uint8Array }[]) => Promise<SourceIndex>

/** the set with a preimage observer and `decoded` added, when a diff is asked for and sources are known or may be looked up */
export function withDecodedStorage(set: TraceSet, config: TracerConfig, sources: SourceIndex | undefined, lookup?: SourceLookup): TraceSet {
  if (!config.prestateTracer?.diffMode || config.prestateTracer.disableStorage || !sources || (sources.empty && !lookup)) return set
  const preimages = createKeccakPreimages()
  return {
    tracers: [...set.tracers, preimages],
    async result(ctx, execute) {
      const out = await set.result(ctx, execute)
      const diff = out.prestateTracer as DiffResult | undefined
      if (diff?.pre && diff.post) {
        const changes = slotChangesOf(diff)
        const index = lookup ? await lookup(await framesOf(Object.keys(changes) as Address[], ctx)) : sources
        const decoded = await decodeAccounts(changes, new Preimages(preimages.result()), index, ctx.state)
        if (Object.keys(decoded).length > 0) out.prestateTracer = { ...diff, decoded }
      }
      return out
    },
  }
}

const ZERO: Hex = `0x${'0'.repeat(64)}`

/** each slot of the diff with its value before the run and after it: a slot the diff omits from `post` was cleared, one it omits from `pre` was zero */
function slotChangesOf(diff: DiffResult): SlotChanges {
  const changes: SlotChanges = {}
  for (const address of new Set([...Object.keys(diff.pre), ...Object.keys(diff.post)] as Address[])) {
    const [pre, post] = [diff.pre[address]?.storage ?? {}, diff.post[address]?.storage ?? {}]
    const slots = [...new Set([...Object.keys(pre), ...Object.keys(post)])] as Hex[]
    if (slots.length === 0) continue
    changes[address] = Object.fromEntries(slots.map((k) => [k, { before: pre[k] ?? ZERO, after: post[k] ?? ZERO }]))
  }
  return changes
}

/** the changed accounts' code and their EIP-1967 implementations', for a verified-sources lookup */
async function framesOf(addresses: Address[], ctx: ExecutionContext): Promise<{ address: Address; code: Uint8Array }[]> {
  const frames: { address: Address; code: Uint8Array }[] = []
  for (const address of addresses) {
    frames.push({ address, code: await ctx.state.getCode(createAddressFromString(address)) })
    const raw = await ctx.state.getStorage(createAddressFromString(address), hexToBytes(IMPLEMENTATION_SLOT))
    const implementation = raw.length === 0 ? 0n : BigInt(bytesToHex(raw))
    if (implementation === 0n) continue
    const at = getAddress(`0x${implementation.toString(16).padStart(40, '0')}`)
    frames.push({ address: at, code: await ctx.state.getCode(createAddressFromString(at)) })
  }
  return frames
}
