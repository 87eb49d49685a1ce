/**
 * callTracer frames (withLog) → the decoded call tree. The geth frame is kept as it is (same keys,
 * same order, same values); decoding only adds `labels`, `implementation`, `function`, `result`,
 * `revert` and each log's `decoded`.
 *
 * Proxies: a frame whose DELEGATECALL child runs with the very same calldata forwards the call
 * (ERC-1967, transparent, beacon, minimal proxies): the frame is decoded with the implementation's
 * ABIs too, and the DELEGATECALL frame, whose `to` is the implementation (geth), with its own.
 *
 * Sources (engine/decoding/callTree/sourceFrames.ts): frames whose code the service knows are
 * decoded with their contract's ABI too and get `contract`, a failed one `source`; with
 * `internal`, internal function calls nest as INTERNAL frames; a reverted transaction's top frame
 * gets a `backtrace`. Without source facts, nothing of this is looked at.
 *
 * Labels: the caller's label for an address, else the token symbol its code answers on the
 * traced state (`symbol()`), read once per address for at most MAX_TOKEN_READS addresses so a
 * 1,000-frame trace over many contracts stays fast.
 *
 * @example
 * const tree = await decodeCallTree(callTracer.result(), { abis: { [addr]: abi }, tokens })
 */
import type { Abi, Address, Hex } from 'viem'
import type { CallFrameJson } from '../../../tracers/callTracer.js'
import { decodeEvent } from './decodeEvent.js'
import { decodeFunctionInput, decodeFunctionOutput } from './decodeFunction.js'
import { decodeRevert } from './decodeRevert.js'
import { signatureDb as defaultDb, type SignatureDb } from './signatureDb.js'
import { abisOf } from './signatures.js'
import { addSources, sourceAbis } from './sourceFrames.js'
import type { CallTreeOptions, DecodedCallFrame, DecodedCallLog, FrameLabels } from './types.js'

const MAX_TOKEN_READS = 256

const lower = (a: string) => a.toLowerCase() as Address

/**
 * A decoding that throws is no decoding: the frame keeps its geth fields and simply lacks the
 * decoded key (never a guess, never a failed trace). The signature database failing to load
 * (package missing) lands here too.
 */
const orNothing = <T>(p: Promise<T | undefined>): Promise<T | undefined> => p.catch(() => undefined)

export async function decodeCallTree(root: CallFrameJson, opts: CallTreeOptions = {}, db: () => Promise<SignatureDb> = defaultDb): Promise<DecodedCallFrame> {
  // the caller's ABIs win over those of the sources the service knows
  const abis = opts.sources ? sourceAbis(root, opts.sources) : new Map<Address, Abi>()
  for (const [a, abi] of Object.entries(opts.abis ?? {})) abis.set(lower(a), abi)
  const allAbis = [...new Set(abis.values())]
  const labels = await labelAddresses(root, opts)

  const labelsOf = (f: CallFrameJson): FrameLabels | undefined => {
    const out: FrameLabels = {}
    const from = labels.get(lower(f.from))
    const to = f.to && labels.get(lower(f.to))
    if (from) out.from = from
    if (to) out.to = to
    return from || to ? out : undefined
  }

  async function decodeFrame(f: CallFrameJson): Promise<DecodedCallFrame> {
    const children = f.calls ?? []
    const forward =
      f.input.length >= 10 ? children.find((c) => c.type === 'DELEGATECALL' && c.input.toLowerCase() === f.input.toLowerCase() && c.to) : undefined
    const implementation = forward?.to ? lower(forward.to) : undefined
    const codeAbis = abisOf(abis, [f.to, implementation])
    const otherAbis = allAbis.filter((a) => !codeAbis.includes(a))
    const isCreate = f.type === 'CREATE' || f.type === 'CREATE2'

    const [fn, revert, calls, logs] = await Promise.all([
      isCreate ? undefined : orNothing(decodeFunctionInput(f.input, codeAbis, db)),
      f.error ? orNothing(decodeRevert(f.output as Hex | undefined, [...codeAbis, ...otherAbis], db)) : undefined,
      Promise.all(children.map(decodeFrame)),
      f.logs
        ? Promise.all(
            f.logs.map(async (log): Promise<DecodedCallLog> => {
              const decoded = await orNothing(decodeEvent(log, abisOf(abis, [log.address, f.to, implementation]), allAbis, db, opts.tokens))
              return decoded ? { ...log, decoded } : { ...log }
            }),
          )
        : undefined,
    ])

    // geth's keys first, in geth's order; then what decoding adds
    const out: DecodedCallFrame = { ...f, calls: undefined, logs: undefined }
    if (f.calls) out.calls = calls
    else delete out.calls
    if (logs) out.logs = logs
    else delete out.logs
    const frameLabels = labelsOf(f)
    if (frameLabels) out.labels = frameLabels
    if (implementation) out.implementation = implementation
    if (fn) {
      out.function = fn.function
      const result = f.error ? undefined : decodeFunctionOutput(fn.item, f.output)
      if (result) out.result = result
    }
    if (revert) out.revert = revert
    return out
  }

  const tree = await decodeFrame(root)
  return opts.sources ? addSources(tree, opts.sources, opts.internal === true) : tree
}

/** caller labels, then token symbols read on the traced state */
async function labelAddresses(root: CallFrameJson, opts: CallTreeOptions): Promise<Map<Address, string>> {
  const labels = new Map<Address, string>()
  for (const [a, label] of Object.entries(opts.labels ?? {})) labels.set(lower(a), label)
  if (!opts.tokens) return labels
  const targets = new Set<Address>()
  const stack = [root]
  while (stack.length) {
    const f = stack.pop()!
    if (f.to && !labels.has(lower(f.to))) targets.add(lower(f.to))
    if (f.calls) stack.push(...f.calls)
  }
  const reads = [...targets].slice(0, MAX_TOKEN_READS)
  const infos = await Promise.all(reads.map((a) => opts.tokens!(a).catch(() => ({}) as { symbol?: string })))
  reads.forEach((a, i) => {
    const symbol = infos[i]?.symbol
    if (symbol) labels.set(a, symbol)
  })
  return labels
}
