/**
 * Block overrides, one reader for every method that takes them: eth_call's and eth_estimateGas'
 * 4th param, debug_traceCall's `blockOverrides`, debug_traceCallMany's `blockOverride`,
 * eth_simulateV1's `blockOverrides` and the REST API's `blockOverrides`. The names are geth's
 * (`override.BlockOverrides`: number, time, gasLimit, feeRecipient, prevRandao, baseFeePerGas,
 * blobBaseFee) and alloy's (reth, Foundry's `cast`: blockNumber, timestamp, coinbase, random,
 * baseFee — alloy's `BlockOverrides` takes geth's as serde aliases). Two names of one field in one
 * object are refused, as reth and Anvil refuse them (serde: "duplicate field `baseFee`", a null
 * counting as given); geth reads only its own names and would drop alloy's silently.
 * A field the engine cannot apply (beaconRoot, withdrawals, blockHash; difficulty outside
 * eth_simulateV1) is refused by name, an unknown one too: nothing is dropped.
 *
 * @example
 * parseBlockOverrides(r, { baseFee: '0x7' }, 'blockOverrides') // { baseFee: 7n }
 */
import type { BlockOverrides } from '../../engine/types.js'
import { absent, at, type Reader, UINT64_MAX } from './grammar.js'

/** every accepted name → the field it sets */
const FIELDS: Record<string, keyof BlockOverrides> = {
  number: 'number',
  blockNumber: 'number',
  time: 'time',
  timestamp: 'time',
  gasLimit: 'gasLimit',
  feeRecipient: 'coinbase',
  coinbase: 'coinbase',
  prevRandao: 'prevRandao',
  random: 'prevRandao',
  baseFeePerGas: 'baseFee',
  baseFee: 'baseFee',
  blobBaseFee: 'blobBaseFee',
}
const UNSUPPORTED: Record<string, string> = {
  // geth's words for the two it refuses on a single call (override.BlockOverrides.Apply)
  beaconRoot: 'block override "beaconRoot" is not supported for this RPC method',
  withdrawals: 'block override "withdrawals" is not supported for this RPC method',
  difficulty: 'block override "difficulty" is not supported here (post-merge blocks have none)',
  blockHash: 'block override "blockHash" is not supported here',
}

export interface BlockOverridesOptions {
  /**
   * eth_simulateV1's reading: `difficulty` is read and has no effect (geth: a no-op after the
   * merge), `number` may be any 256-bit number (geth's hexutil.Big; the simulation's own rules
   * then refuse what it cannot reach). Elsewhere `difficulty` is refused and `number` is 64-bit.
   */
  simulate?: boolean
  /** the REST API's reading: quantities with leading zeros, or JSON integers */
  lenient?: boolean
}

export function parseBlockOverrides(r: Reader, v: unknown, path: string, opts: BlockOverridesOptions = {}): BlockOverrides | undefined {
  if (absent(v)) return undefined
  const o = r.object(v, path, 'blockOverrides')
  const lenient = opts.lenient ? { leadingZeros: true, numbers: true } : {}
  const out: BlockOverrides = {}
  /** fields named so far, a null included (serde counts a null as the field given) */
  const named = new Set<keyof BlockOverrides>()
  for (const [key, value] of Object.entries(o)) {
    const p = at(path, key)
    const field = FIELDS[key]
    if (field && named.has(field)) r.said(p, `${field} is given twice`)
    if (field) named.add(field)
    if (absent(value)) continue
    if (key === 'difficulty' && opts.simulate) {
      r.quantity(value, p)
      continue
    }
    const unsupported = UNSUPPORTED[key]
    // geth's eth_simulateV1 applies beaconRoot and withdrawals; the engine cannot
    if (unsupported && opts.simulate) r.said(p, `${key} is not supported by eth_simulateV1 here`)
    if (unsupported) r.said(p, unsupported)
    if (!field) r.said(p, `unknown field (accepted: ${Object.keys(FIELDS).join(', ')})`)
    if (field === 'coinbase') out.coinbase = r.address(value, p)
    else if (field === 'prevRandao') out.prevRandao = r.hash(value, p)
    else {
      const uint64 = field === 'time' || field === 'gasLimit' || (field === 'number' && !opts.simulate)
      out[field] = r.quantity(value, p, { ...lenient, ...(uint64 && { max: UINT64_MAX }) })
    }
  }
  return out
}
