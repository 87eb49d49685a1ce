/**
 * The known contracts, recognised by their code (codeMatch.ts): a runtime code by its length and
 * then its bytes outside the blanked ranges, an init code by the creation codes it begins with.
 * Built once per set of contracts; a code object already asked about answers from a memo, so a
 * trace that meets the same contract at every frame compares its bytes once. Of two contracts
 * whose code matches alike, the later in the list wins: a project that registers its build again
 * (a comment moved its lines, not its code) is shown in its newer source.
 */
import { type BlankedCode, blankedCode, matchesBlanked } from './codeMatch.js'
import type { ContractSource, SourceIndex } from './types.js'

interface Candidate {
  contract: ContractSource
  blanked: BlankedCode
}

/** a contract's blanked codes, computed once however many indexes it enters (one per registration) */
const blankedOf = new WeakMap<ContractSource, { runtime: BlankedCode; creation: BlankedCode }>()

function blankedCodesOf(contract: ContractSource): { runtime: BlankedCode; creation: BlankedCode } {
  let codes = blankedOf.get(contract)
  if (!codes) {
    codes = { runtime: blankedCode(contract.runtime, 'runtime'), creation: blankedCode(contract.creation, 'creation') }
    blankedOf.set(contract, codes)
  }
  return codes
}

export function createSourceIndex(contracts: ContractSource[]): SourceIndex {
  const runtimeByLength = new Map<number, Candidate[]>()
  const creations: Candidate[] = []
  for (const contract of [...contracts].reverse()) {
    const { runtime, creation } = blankedCodesOf(contract)
    if (runtime.bytes.length > 0) {
      const same = runtimeByLength.get(runtime.bytes.length)
      if (same) same.push({ contract, blanked: runtime })
      else runtimeByLength.set(runtime.bytes.length, [{ contract, blanked: runtime }])
    }
    if (creation.bytes.length > 0) creations.push({ contract, blanked: creation })
  }
  // the longest creation code first (a factory's init code may begin with a shorter one's bytes only
  // by chance); the sort is stable, so among equals the later contract stays first
  creations.sort((a, b) => b.blanked.bytes.length - a.blanked.bytes.length)
  const runtimeMemo = new WeakMap<Uint8Array, ContractSource | null>()
  const creationMemo = new WeakMap<Uint8Array, ContractSource | null>()
  const memoized = (memo: WeakMap<Uint8Array, ContractSource | null>, code: Uint8Array, find: () => ContractSource | undefined) => {
    const known = memo.get(code)
    if (known !== undefined) return known ?? undefined
    const found = find()
    memo.set(code, found ?? null)
    return found
  }
  return {
    empty: contracts.length === 0,
    matchRuntime: (code) => memoized(runtimeMemo, code, () => runtimeByLength.get(code.length)?.find((c) => matchesBlanked(c.blanked, code))?.contract),
    matchCreation: (initCode) => memoized(creationMemo, initCode, () => creations.find((c) => matchesBlanked(c.blanked, initCode))?.contract),
  }
}
