/**
 * A call's calldata → its function and arguments, and its return data → the outputs.
 *
 * Candidates with the call's selector come from the caller's ABIs of the code's addresses, then
 * the bundled ABIs, and only when none of those decodes cleanly, the signature database (so it is
 * loaded only for calls nothing else knows). The first candidate that decodes cleanly wins; when
 * none does, the first that decodes at all, marked `exact: false`. Every other signature seen for
 * the selector is reported in `alternatives`.
 */
import { size, type Abi, type AbiFunction, type Hex } from 'viem'
import { argsObject, decodeParams } from './abiValues.js'
import type { SignatureDb } from './signatureDb.js'
import { abiIndex, bundledIndex, parseDbSignature, type Candidate, type SelectorItem } from './signatures.js'
import type { DecodedArgs, DecodedFunction } from './types.js'

export interface DecodedCall {
  function: DecodedFunction
  /** the chosen item, for the outputs */
  item: AbiFunction
}

interface Pick<T extends SelectorItem> {
  chosen: Candidate<T>
  values: readonly unknown[]
  exact: boolean
  others: string[]
}

/** the candidate that decodes cleanly (else the first that decodes), among those of `kind` */
export async function pickCandidate<T extends SelectorItem>(
  kind: T['type'],
  selector: Hex,
  body: Hex,
  callerAbis: readonly Abi[],
  db: () => Promise<SignatureDb>,
): Promise<Pick<T> | undefined> {
  const seen: Candidate<T>[] = []
  const ofKind = (list: Candidate<SelectorItem>[] | undefined) => (list ?? []).filter((c): c is Candidate<T> => c.item.type === kind)
  for (const abi of callerAbis) seen.push(...ofKind(abiIndex(abi).selectors.get(selector)))
  seen.push(...ofKind(bundledIndex().selectors.get(selector)))

  type Best = { c: Candidate<T>; values: readonly unknown[]; exact: boolean }
  /** the first exact decoding among seen[from..], else the first decoding at all */
  const tryFrom = (from: number): Best | undefined => {
    let loose: Best | undefined
    for (let i = from; i < seen.length; i++) {
      const c = seen[i]!
      const d = decodeParams(c.item.inputs, body)
      if (!d) continue
      if (d.exact) return { c, values: d.values, exact: true }
      loose ??= { c, values: d.values, exact: false }
    }
    return loose
  }
  let best = tryFrom(0)
  if (!best?.exact) {
    const signature = (await db()).fn(selector)
    const item = signature && parseDbSignature(kind as 'function' | 'error', signature)
    if (signature && item && !seen.some((c) => c.signature === signature)) {
      seen.push({ item: item as T, signature, source: 'signatureDb' })
      const fromDb = tryFrom(seen.length - 1)
      if (fromDb && (fromDb.exact || !best)) best = fromDb
    }
  }
  if (!best) return undefined
  const chosen = best.c
  const others = [...new Set(seen.map((c) => c.signature))].filter((s) => s !== chosen.signature)
  return { chosen, values: best.values, exact: best.exact, others }
}

export async function decodeFunctionInput(input: Hex, callerAbis: readonly Abi[], db: () => Promise<SignatureDb>): Promise<DecodedCall | undefined> {
  if (size(input) < 4) return undefined
  const pick = await pickCandidate<AbiFunction>('function', input.slice(0, 10).toLowerCase() as Hex, `0x${input.slice(10)}`, callerAbis, db)
  if (!pick) return undefined
  const fn: DecodedFunction = {
    name: pick.chosen.item.name,
    signature: pick.chosen.signature,
    args: argsObject(pick.chosen.item.inputs, pick.values),
    source: pick.chosen.source,
  }
  if (!pick.exact) fn.exact = false
  if (pick.others.length) fn.alternatives = pick.others
  return { function: fn, item: pick.chosen.item }
}

/** return data decoded with the function's outputs; undefined without outputs or when it does not decode */
export function decodeFunctionOutput(item: AbiFunction, output: Hex | undefined): DecodedArgs | undefined {
  if (!output || output === '0x' || !item.outputs?.length) return undefined
  const d = decodeParams(item.outputs, output)
  return d ? argsObject(item.outputs, d.values) : undefined
}
