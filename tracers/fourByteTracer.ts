/**
 * 4byteTracer: a port of go-ethereum v1.17 `eth/tracers/native/4byte.go`, in OUR output shape
 * (interface §8): `{totalIdentifiers, identifiers: {"0xa9059cbb": {count, dataSize}}}`.
 *
 * Like geth it counts every CALL, CALLCODE, DELEGATECALL and STATICCALL entry (the top call
 * included) whose input is at least 4 bytes, and skips CREATE/CREATE2/SELFDESTRUCT and calls to
 * the precompiles active at the tx's fork. geth keys by `selector-argsize`; our REST shape keys by
 * selector alone and keeps `dataSize` (input length − 4) of the selector's first use. With
 * `gethForm` the result is geth's own: `{"0xa9059cbb-64": 2}`, keys sorted as Go prints a map.
 *
 * @example
 * const t = createFourByteTracer()
 * t.result() // { totalIdentifiers: 1, identifiers: { '0xa9059cbb': { count: 2, dataSize: 64 } } }
 * createFourByteTracer({ gethForm: true }).result() // { '0xa9059cbb-64': 2 }
 */
import type { Hex } from 'viem'
import type { EnterEvent, Tracer, TxContext } from './types.js'

export interface FourByteResult {
  totalIdentifiers: number
  identifiers: Record<Hex, { count: number; dataSize: number }>
}

const COUNTED = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'])

/** geth's 4byte.go output: `"0x<selector>-<len(input)-4>": count` */
export type GethFourByteResult = Record<string, number>

export function createFourByteTracer(opts?: { gethForm?: false }): Tracer<FourByteResult>
export function createFourByteTracer(opts: { gethForm: true }): Tracer<GethFourByteResult>
export function createFourByteTracer(opts: { gethForm?: boolean }): Tracer<FourByteResult | GethFourByteResult>
export function createFourByteTracer(opts: { gethForm?: boolean } = {}): Tracer<FourByteResult | GethFourByteResult> {
  const ids = new Map<Hex, { count: number; dataSize: number }>()
  const bySize = new Map<string, number>()
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
      const key = `${selector}-${bytes - 4}`
      bySize.set(key, (bySize.get(key) ?? 0) + 1)
      const seen = ids.get(selector)
      if (seen) seen.count++
      else ids.set(selector, { count: 1, dataSize: bytes - 4 })
    },
    result(): FourByteResult | GethFourByteResult {
      if (opts.gethForm) {
        const out: GethFourByteResult = {}
        // Go's encoding/json sorts map keys bytewise
        for (const k of [...bySize.keys()].sort()) out[k] = bySize.get(k)!
        return out
      }
      const identifiers: FourByteResult['identifiers'] = {}
      for (const sel of [...ids.keys()].sort()) identifiers[sel] = { ...ids.get(sel)! }
      return { totalIdentifiers: ids.size, identifiers }
    },
  }
}
