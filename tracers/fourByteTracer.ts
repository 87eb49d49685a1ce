/**
 * 4byteTracer: a port of go-ethereum v1.17 `eth/tracers/native/4byte.go`, in OUR output shape
 * (decisions.md §8): `{totalIdentifiers, identifiers: {"0xa9059cbb": {count, dataSize}}}`.
 *
 * Like geth it counts every CALL, CALLCODE, DELEGATECALL and STATICCALL entry (the top call
 * included) whose input is at least 4 bytes, and skips CREATE/CREATE2/SELFDESTRUCT and calls to
 * the precompiles active at the tx's fork. geth keys by `selector-argsize`; we key by selector
 * alone and keep `dataSize` (input length − 4) of the selector's first use.
 *
 * @example
 * const t = createFourByteTracer()
 * t.result() // { totalIdentifiers: 1, identifiers: { '0xa9059cbb': { count: 2, dataSize: 64 } } }
 */
import type { Hex } from 'viem'
import type { EnterEvent, Tracer, TxContext } from './types.js'

export interface FourByteResult {
  totalIdentifiers: number
  identifiers: Record<Hex, { count: number; dataSize: number }>
}

const COUNTED = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'])

export function createFourByteTracer(): Tracer<FourByteResult> {
  const ids = new Map<Hex, { count: number; dataSize: number }>()
  let ctx: TxContext | undefined

  return {
    onTxStart(c) {
      ctx = c
    },
    onEnter(e: EnterEvent) {
      if (!COUNTED.has(e.type)) return
      // input is 0x-hex: 4 bytes = 8 hex digits
      const bytes = (e.input.length - 2) / 2
      if (bytes < 4) return
      if (ctx?.isPrecompile(e.to)) return
      const selector = e.input.slice(0, 10).toLowerCase() as Hex
      const seen = ids.get(selector)
      if (seen) seen.count++
      else ids.set(selector, { count: 1, dataSize: bytes - 4 })
    },
    result(): FourByteResult {
      const identifiers: FourByteResult['identifiers'] = {}
      for (const sel of [...ids.keys()].sort()) identifiers[sel] = { ...ids.get(sel)! }
      return { totalIdentifiers: ids.size, identifiers }
    },
  }
}
