/**
 * Verified sources by address from a Sourcify-compatible service (APIv2
 * `GET /v2/contract/{chainId}/{address}?fields=all`: the standard-JSON input and output, the
 * sources, the source maps, link and immutable references), asked on first need for code no
 * registered contract matches.
 *
 * Every answer is kept in the cache store under the chain id, the address and the keccak-256 of
 * the code found there — a verified contract for good, "not verified" for an hour (it may be
 * verified later) — and in the process, so a second trace, another worker or another instance on
 * the store asks the service nothing. A contract whose recompiled code does not match the code
 * at the address is kept as "not verified". The service down, failing or slower than the
 * upstream time budget gives no sources and a warning, never a failed trace; nothing is kept, and
 * for RETRY_AFTER_MS the process does not ask it again (each trace answers at once, with the
 * warning, instead of waiting out the budget again).
 */
import type { Address } from 'viem'
import { bytesToHex } from 'viem'
import { keccak256 } from '../platform/keccak.js'
import type { CacheStore } from '../state/store/cacheStore.js'
import { contractsOfBuildInfo } from './buildInfo.js'
import { decodeEntry, encodeEntry } from './sourceEntries.js'
import { createSourceIndex } from './sourceIndex.js'
import { isRecord } from './sourcesError.js'
import type { ContractSource } from './types.js'

export interface VerifiedSources {
  lookup(chainId: number, frames: { address: Address; code: Uint8Array }[]): Promise<{ contracts: ContractSource[]; warnings: string[] }>
  /** what a process keeps of the verified contracts it was given: the newest, within the byte bound */
  keep(contracts: ContractSource[]): ContractSource[]
}

export interface SourcifyOptions {
  /** the service's base URL, e.g. https://sourcify.dev/server */
  url: string
  cache: CacheStore
  /** the upstream time budget, ms: all of one lookup's requests together */
  budgetMs: number
  /** bound of the verified contracts one process keeps, bytes of their JSON */
  maxBytes: number
}

const NOT_VERIFIED_TTL_SECONDS = 3600
const NOT_VERIFIED = new Uint8Array(0)
/** answers a process remembers without asking the store (a key is ~100 bytes) */
const MEMO_ENTRIES = 10_000
/** after the service failed, how long a process leaves it alone */
export const RETRY_AFTER_MS = 10_000

type Answer = { contract: ContractSource | undefined } | { warning: string }

export function createSourcifySources(opts: SourcifyOptions): VerifiedSources {
  const base = opts.url.replace(/\/+$/, '')
  const memo = new Map<string, ContractSource | null>()
  const sizes = new WeakMap<ContractSource, number>()
  let failed: { until: number; warning: string } | undefined
  const remember = (key: string, contract: ContractSource | undefined) => {
    if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value as string)
    memo.set(key, contract ?? null)
  }

  /** the answer the process or the store already has, if any */
  async function known(key: string): Promise<{ contract: ContractSource | undefined } | undefined> {
    const held = memo.get(key)
    if (held !== undefined) return { contract: held ?? undefined }
    const stored = await opts.cache.get(key).catch(() => undefined)
    if (!stored) return undefined
    const contract = stored.byteLength === 0 ? undefined : decodeEntry(stored)[0]
    remember(key, contract)
    return { contract }
  }

  /** while the service rests: what is known, else the warning */
  async function answerKnown(chainId: number, frame: { address: Address; code: Uint8Array }, warning: string): Promise<Answer> {
    return (await known(keyOf(chainId, frame))) ?? { warning }
  }

  async function answerFor(chainId: number, frame: { address: Address; code: Uint8Array }, signal: AbortSignal): Promise<Answer> {
    const key = keyOf(chainId, frame)
    const hit = await known(key)
    if (hit) return hit
    const fetched = await fetchVerified(base, chainId, frame, signal)
    if ('warning' in fetched) return fetched
    const entry = fetched.contract && encodeEntry([fetched.contract])
    if (fetched.contract && entry) sizes.set(fetched.contract, entry.jsonBytes)
    await opts.cache.set(key, entry?.bytes ?? NOT_VERIFIED, entry ? undefined : NOT_VERIFIED_TTL_SECONDS).catch(() => undefined)
    remember(key, fetched.contract)
    return fetched
  }

  return {
    async lookup(chainId, frames) {
      const resting = failed && Date.now() < failed.until ? failed.warning : undefined
      const signal = AbortSignal.timeout(opts.budgetMs)
      const unique = [...new Map(frames.map((f) => [f.address.toLowerCase(), f])).values()]
      const ask = (f: (typeof unique)[number]) =>
        resting !== undefined
          ? answerKnown(chainId, f, resting)
          : answerFor(chainId, f, signal).catch((): Answer => ({ warning: failure(opts.budgetMs, signal) }))
      const answers = await Promise.all(unique.map(ask))
      const contracts = answers.flatMap((a) => ('contract' in a && a.contract ? [a.contract] : []))
      const warnings = [...new Set(answers.flatMap((a) => ('warning' in a ? [a.warning] : [])))]
      if (warnings.length > 0 && resting === undefined) failed = { until: Date.now() + RETRY_AFTER_MS, warning: warnings[0]! }
      return { contracts, warnings }
    },
    keep(contracts) {
      let total = 0
      const kept: ContractSource[] = []
      for (let i = contracts.length - 1; i >= 0; i--) {
        const c = contracts[i]!
        const size = sizes.get(c) ?? encodeEntry([c]).jsonBytes
        sizes.set(c, size)
        total += size
        if (total > opts.maxBytes) break
        kept.unshift(c)
      }
      return kept
    },
  }
}

const keyOf = (chainId: number, frame: { address: Address; code: Uint8Array }) =>
  `sources:sourcify:${chainId}:${frame.address.toLowerCase()}:${bytesToHex(keccak256(frame.code))}`

/** the warning a failed lookup gives; never the URL (it may carry a key) */
function failure(budgetMs: number, signal: AbortSignal): string {
  return signal.aborted
    ? `sources: the Sourcify-compatible service did not answer within the upstream time budget (${budgetMs} ms); traced without its verified sources`
    : 'sources: the Sourcify-compatible service could not be reached; traced without its verified sources'
}

async function fetchVerified(base: string, chainId: number, frame: { address: Address; code: Uint8Array }, signal: AbortSignal): Promise<Answer> {
  const res = await fetch(`${base}/v2/contract/${chainId}/${frame.address}?fields=all`, { signal, headers: { accept: 'application/json' } })
  if (res.status === 404) {
    await res.body?.cancel()
    return { contract: undefined }
  }
  if (!res.ok) {
    await res.body?.cancel()
    return { warning: `sources: the Sourcify-compatible service answered HTTP ${res.status}; traced without its verified sources` }
  }
  const contract = contractOfDocument(await res.json())
  // recompiled code that is not the code at the address tells nothing about it
  return { contract: contract && createSourceIndex([contract]).matchRuntime(frame.code) ? contract : undefined }
}

/**
 * The verified contract of an APIv2 document, read as a build-info: the standard-JSON input, and
 * an output made of the document's own bytecode fields (they carry the source maps and
 * references whether or not `stdJsonOutput` does). A document the service cannot map (another
 * language, fields missing) is no contract.
 */
export function contractOfDocument(doc: unknown): ContractSource | undefined {
  if (!isRecord(doc) || !isRecord(doc.compilation) || !isRecord(doc.stdJsonInput)) return undefined
  const { name, fullyQualifiedName, compilerVersion } = doc.compilation
  if (typeof name !== 'string' || typeof fullyQualifiedName !== 'string') return undefined
  const file = fullyQualifiedName.slice(0, fullyQualifiedName.length - name.length - 1)
  const stdOut = isRecord(doc.stdJsonOutput) ? doc.stdJsonOutput : {}
  const code = (b: unknown) =>
    isRecord(b)
      ? {
          object: b.recompiledBytecode ?? b.onchainBytecode,
          sourceMap: b.sourceMap,
          linkReferences: b.linkReferences ?? {},
          immutableReferences: b.immutableReferences,
        }
      : undefined
  const output = {
    sources: isRecord(stdOut.sources) ? stdOut.sources : sourceIds(doc.stdJsonInput),
    contracts: {
      [file]: {
        [name]: {
          abi: doc.abi,
          evm: { bytecode: code(doc.creationBytecode), deployedBytecode: code(doc.runtimeBytecode) },
          // the document's own field (APIv2 `storageLayout`): variables by name where the compilation selected it
          ...(isRecord(doc.storageLayout) && { storageLayout: doc.storageLayout }),
        },
      },
    },
  }
  try {
    return contractsOfBuildInfo({ input: doc.stdJsonInput, output, solcVersion: compilerVersion })[0]
  } catch {
    return undefined
  }
}

/** solc numbers the sources in the order of their names when the output does not say */
function sourceIds(input: Record<string, unknown>): Record<string, { id: number }> {
  const paths = Object.keys(isRecord(input.sources) ? input.sources : {}).sort()
  return Object.fromEntries(paths.map((p, id) => [p, { id }]))
}
