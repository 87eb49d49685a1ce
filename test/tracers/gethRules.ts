/**
 * Where Anvil 1.7.1 deviates from geth v1.17 (docs/geth-reference.md §5), these helpers turn
 * Anvil's answer into what geth answers, so the differential tests compare against geth's rule.
 * Every rewrite names the deviation it undoes.
 */
import { keccak256, type Hex } from 'viem'
import { PANIC_REASONS } from '../../tracers/gethRevert.js'
import type { StructLog } from '../../tracers/structLogger.js'

export interface Frame {
  from: string
  gas: string
  gasUsed: string
  to?: string
  input: string
  output?: string
  error?: string
  revertReason?: string
  calls?: Frame[]
  logs?: { address: string; topics: string[]; data: string; index?: string; position?: string }[]
  value?: string
  type: string
}

/** geth accounts/abi UnpackRevert texts for Panic(uint256) (§1.3; Anvil's texts differ, §5.14) */
const PANIC = PANIC_REASONS

export function gethPanicReason(output: string): string | undefined {
  if (!output.startsWith('0x4e487b71') || output.length !== 2 + 8 + 64) return undefined
  const code = Number(BigInt(`0x${output.slice(10)}`))
  return PANIC[code] ?? `unknown panic code: 0x${code.toString(16)}`
}

/**
 * Anvil callTracer → geth callTracer:
 * - §5.1 top `gas` is the tx gas limit in geth (Anvil: limit − intrinsic);
 * - §5.14 Panic revertReason texts are geth's table;
 * - §5.3 log `index` is renumbered in execution order skipping reverted frames' logs (for a
 *   debug_traceCall geth numbers from 0; reverted logs are not kept with withLog anyway).
 */
export function gethCallFrame(anvil: Frame, gasLimit: bigint): Frame {
  const top: Frame = { ...anvil, gas: `0x${gasLimit.toString(16)}` }
  const fix = (f: Frame): Frame => {
    const out = { ...f }
    if (out.output && out.error === 'execution reverted') {
      const panic = gethPanicReason(out.output)
      if (panic) out.revertReason = panic
    }
    if (out.calls) out.calls = out.calls.map(fix)
    return out
  }
  return fix(top)
}

/**
 * §5.3: geth numbers logs from 0 in a debug_traceCall and a reverted frame gives its numbers back,
 * so the logs that remain are numbered consecutively in execution order. Anvil counts reverted logs.
 * A MINED transaction's logs count on from the logs of the earlier transactions of its block
 * (geth's block-wide log counter): pass that count as `firstIndex`.
 */
export function renumberLogs(root: Frame, firstIndex = 0): Frame {
  let next = firstIndex
  const walk = (f: Frame): Frame => {
    const out: Frame = { ...f }
    // a frame's logs interleave with its sub-calls by `position`: emit logs at position p before call p
    const calls = f.calls ?? []
    const logs = (f.logs ?? []).map((l) => ({ ...l }))
    const newCalls: Frame[] = []
    let li = 0
    for (let ci = 0; ci <= calls.length; ci++) {
      while (li < logs.length && Number(logs[li].position ?? '0x0') <= ci) logs[li++].index = `0x${(next++).toString(16)}`
      if (ci < calls.length) newCalls.push(walk(calls[ci]))
    }
    if (f.calls) out.calls = newCalls
    if (f.logs) out.logs = logs
    return out
  }
  return walk(root)
}

export type PrestateAccount = { balance?: string; code?: string; codeHash?: string; nonce?: number; storage?: Record<string, string> }
export type Prestate = Record<string, PrestateAccount>

const isEmptyAccount = (a: PrestateAccount) => (!a.balance || BigInt(a.balance) === 0n) && !a.nonce && (!a.code || a.code === '0x')

/**
 * Anvil prestate (default mode) → geth: §5.5 accounts that were empty before the tx are removed
 * unless includeEmpty (Anvil keeps them).
 */
export function gethPrestate(anvil: Prestate): Prestate {
  return Object.fromEntries(Object.entries(anvil).filter(([, a]) => !isEmptyAccount(a)))
}

/** §5.13: Anvil prints no codeHash. Checks ours is keccak(code) where both exist, then drops it. */
export function withoutCodeHash(ours: Prestate, expectCodeHash = true): Prestate {
  const out: Prestate = {}
  for (const [addr, a] of Object.entries(ours)) {
    const { codeHash, ...rest } = a
    if (expectCodeHash && a.code && a.code !== '0x' && codeHash !== keccak256(a.code as Hex)) {
      throw new Error(`codeHash of ${addr} is ${codeHash}, not keccak(code)`)
    }
    out[addr] = rest
  }
  return out
}

/** a struct log as geth prints it (our tracer's type: geth's fields; Anvil's answers are read as it) */
export type { StructLog }

/**
 * Anvil struct logs → geth: §5.8 `refund: 0` and `memory: []` are omitted by geth; §5.6 error texts
 * differ (compared by presence only, our text is checked against geth's table elsewhere), and so
 * does the gasCost of a failing step (see below); §5.7
 * CREATE/CREATE2 gasCost includes the forwarded gas in Anvil (we drop it from both sides).
 */
export function comparableStructLogs(logs: StructLog[]): StructLog[] {
  return logs.map((l) => {
    const out: StructLog = { ...l }
    if (out.refund === 0) delete out.refund
    if (out.memory && out.memory.length === 0) delete out.memory
    // like §5.8: Anvil prints `"returnData": "0x"`; geth sets it only when non-empty (logger.go)
    if (out.returnData === '0x') delete out.returnData
    if (out.error !== undefined) {
      out.error = '<error>'
      // Anvil reports gasCost 0 on a step that runs out of gas; geth reports the op's constant gas
      // (interpreter.go sets `cost = operation.constantGas` before the gas check). Checked apart.
      out.gasCost = -1
    }
    if (out.op === 'CREATE' || out.op === 'CREATE2') out.gasCost = -1
    return out
  })
}

/** geth 4byte `{"0xsel-size": count}` → ours `{totalIdentifiers, identifiers: {sel: {count, dataSize}}}` */
export function fourByteFromGeth(geth: Record<string, number>) {
  const identifiers: Record<string, { count: number; dataSize: number }> = {}
  for (const [key, count] of Object.entries(geth)) {
    const [sel, size] = key.split('-')
    const seen = identifiers[sel]
    if (seen) seen.count += count
    else identifiers[sel] = { count, dataSize: Number(size) }
  }
  return { totalIdentifiers: Object.keys(identifiers).length, identifiers }
}

/**
 * The first step where two (comparable) struct logs differ, with its neighbours, so a failing
 * comparison of thousands of steps points at the step instead of printing both arrays.
 */
export function firstStepDifference(ours: StructLog[], theirs: StructLog[]): { index: number; ours: StructLog[]; theirs: StructLog[] } | undefined {
  const canon = (l: StructLog | undefined) => JSON.stringify(l, l ? Object.keys(l).sort() : undefined)
  const n = Math.max(ours.length, theirs.length)
  for (let i = 0; i < n; i++) {
    if (canon(ours[i]) !== canon(theirs[i]) || JSON.stringify(ours[i]?.storage) !== JSON.stringify(theirs[i]?.storage)) {
      return { index: i, ours: ours.slice(Math.max(0, i - 1), i + 1), theirs: theirs.slice(Math.max(0, i - 1), i + 1) }
    }
  }
  return undefined
}
