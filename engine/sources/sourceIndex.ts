/**
 * The known contracts, recognised by their code (codeMatch.ts): a runtime code by its length and
 * then its bytes outside the blanked ranges, an init code by the creation codes it begins with.
 * Built once per set of contracts; a code object already asked about answers from a memo, so a
 * trace that meets the same contract at every frame compares its bytes once.
 */
import { type BlankedCode, blankedCode, matchesBlanked } from './codeMatch.js'
import type { ContractSource, SourceIndex } from './types.js'

interface Candidate {
  contract: ContractSource
  blanked: BlankedCode
}

export function createSourceIndex(contracts: ContractSource[]): SourceIndex {
  const runtimeByLength = new Map<number, Candidate[]>()
  const creations: Candidate[] = []
  for (const contract of contracts) {
    const runtime = blankedCode(contract.runtime, 'runtime')
    if (runtime.bytes.length > 0) {
      const same = runtimeByLength.get(runtime.bytes.length) ?? []
      runtimeByLength.set(runtime.bytes.length, [...same, { contract, blanked: runtime }])
    }
    const creation = blankedCode(contract.creation, 'creation')
    if (creation.bytes.length > 0) creations.push({ contract, blanked: creation })
  }
  // the longest creation code first: a factory's init code may begin with a shorter one's bytes only by chance
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
