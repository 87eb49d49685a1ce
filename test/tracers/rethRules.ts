/**
 * Where Anvil 1.7.1 deviates from reth in the Parity `trace_*` answers, these helpers turn Anvil's
 * answer into reth's, so the differential tests compare against reth's rule. Every rewrite names
 * the rule it applies and where reth has it.
 */

export interface ParityFrame {
  action: { callType?: string; to?: string; value?: string }
  subtraces: number
  traceAddress: number[]
  type: string
}

/** the precompiles of Osaka (0x01–0x11, 0x100), the fork Anvil runs by default; earlier forks' sets are subsets */
export function isOsakaPrecompile(address: string): boolean {
  const n = BigInt(address)
  return (n >= 1n && n <= 0x11n) || n === 0x100n
}

/**
 * Anvil prints calls into precompiles in its `trace_*` frames (its tracer runs with
 * `TracingInspectorConfig::all()`); reth's run with `default_parity()`, whose
 * `exclude_precompile_calls` leaves out every call below the top into a precompile that moves no
 * value (revm-inspectors `TracingInspector::is_precompile_call`). Such a call is pushed into the
 * arena without being attached to its parent (`PushTraceKind::PushOnly`), so it is no subtrace and
 * takes no place in its siblings' `traceAddress` (`ParityTraceBuilder::trace_address`). This
 * drops those frames and renumbers `traceAddress` and `subtraces` the same way.
 */
export function rethParityFrames<T extends ParityFrame>(frames: T[], isPrecompile: (address: string) => boolean = isOsakaPrecompile): T[] {
  // a list may hold several transactions' frames (trace_block): each starts at its top frame
  const transactions: T[][] = []
  for (const f of frames) {
    if (f.traceAddress.length === 0 || transactions.length === 0) transactions.push([])
    transactions[transactions.length - 1]!.push(f)
  }
  return transactions.flatMap((tx) => withoutPrecompileCalls(tx, isPrecompile))
}

function withoutPrecompileCalls<T extends ParityFrame>(frames: T[], isPrecompile: (address: string) => boolean): T[] {
  const hidden = (f: T) =>
    f.type === 'call' && f.traceAddress.length > 0 && f.action.to !== undefined && isPrecompile(f.action.to) && BigInt(f.action.value ?? '0x0') === 0n
  /** a kept frame's new traceAddress, by its old one */
  const renamed = new Map<string, number[]>()
  /** how many kept children a frame has, by its new traceAddress */
  const children = new Map<string, number>()
  const kept: T[] = []
  for (const f of frames) {
    if (hidden(f)) continue
    let traceAddress: number[] = []
    if (f.traceAddress.length > 0) {
      const parent = renamed.get(f.traceAddress.slice(0, -1).join(','))!
      const index = children.get(parent.join(',')) ?? 0
      children.set(parent.join(','), index + 1)
      traceAddress = [...parent, index]
    }
    renamed.set(f.traceAddress.join(','), traceAddress)
    kept.push({ ...f, traceAddress })
  }
  return kept.map((f) => ({ ...f, subtraces: children.get(f.traceAddress.join(',')) ?? 0 }))
}
