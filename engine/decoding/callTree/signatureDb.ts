/**
 * The offline signature database of npm `sevm` (MIT, `sevm/4bytedb`: about 120k function and 19k
 * event signatures from 4byte.directory, ~6 MB of JSON). It is the last resort after the caller's
 * ABIs and the bundled ones, so it is read lazily: on the first selector or topic nothing else
 * knows, never at start-up, then kept for the life of the process (or worker thread).
 *
 * Function selectors also serve custom errors: an error selector is hashed the same way and the
 * database does not tell them apart. Signatures carry types only (no names, no `indexed`).
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Hex } from 'viem'

export interface SignatureDb {
  /** `transfer(address,uint256)` for `0xa9059cbb` */
  fn(selector: Hex): string | undefined
  /** `Transfer(address,address,uint256)` for its topic0 */
  event(topic0: Hex): string | undefined
}

let loading: Promise<SignatureDb> | undefined

async function load(): Promise<SignatureDb> {
  const require = createRequire(import.meta.url)
  const dir = dirname(require.resolve('sevm/4bytedb'))
  const [fns, events] = await Promise.all(
    ['functionHashes.min.json', 'eventHashes.min.json'].map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8')) as Record<string, string>),
  )
  // keys are lowercase hex without 0x; Object.hasOwn keeps `constructor` & co. out
  const lookup = (table: Record<string, string>, key: Hex) => {
    const k = key.slice(2).toLowerCase()
    return Object.hasOwn(table, k) ? table[k] : undefined
  }
  return { fn: (s) => lookup(fns!, s), event: (t) => lookup(events!, t) }
}

/** The database, loaded on the first call; a failed load is retried on the next call. */
export function signatureDb(): Promise<SignatureDb> {
  loading ??= load().catch((e: unknown) => {
    loading = undefined
    throw e
  })
  return loading
}
