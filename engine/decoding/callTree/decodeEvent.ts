/**
 * A log → its event. Sources in order: the caller's ABIs of the emitting address and of the code
 * that ran (a proxy's logs are emitted by the proxy with the implementation's code), the bundled
 * event table (with its one-line summary, interface §4), every other caller ABI, then the
 * signature database. The database knows types but not which are `indexed`: each placement with
 * the log's topic count is tried, the first that decodes cleanly wins.
 *
 * Strict like the bundled decoder: every static topic and the data must re-encode to the logged
 * bytes. An indexed dynamic value (string, bytes, array, tuple) is only its keccak hash in the
 * topic: it is reported as that hash.
 */
import type { Abi, AbiEvent, AbiParameter, Address, Hex } from 'viem'
import { decodeLog } from '../decodeLogs.js'
import type { TokenInfoReader } from '../tokenInfo.js'
import { argsObject, decodeParams } from './abiValues.js'
import type { SignatureDb } from './signatureDb.js'
import { abiIndex, parseDbSignature } from './signatures.js'
import type { DecodedArgs, DecodedLogEvent } from './types.js'

export interface LogLike {
  address: Address
  topics: readonly Hex[]
  data: Hex
}

const isDynamic = (type: string) => type === 'string' || type === 'bytes' || type.endsWith(']') || type.startsWith('tuple')

/** the event's args when the log is exactly its encoding, else undefined */
export function decodeEventStrict(event: AbiEvent, log: LogLike): DecodedArgs | undefined {
  const indexed = event.inputs.filter((i) => i.indexed)
  if (log.topics.length !== indexed.length + 1) return undefined
  const values = new Map<AbiParameter, unknown>()
  for (const [i, param] of indexed.entries()) {
    const topic = log.topics[i + 1]!
    if (isDynamic(param.type)) {
      values.set(param, topic.toLowerCase())
      continue
    }
    const d = decodeParams([param], topic)
    if (!d?.exact) return undefined
    values.set(param, d.values[0])
  }
  const rest = event.inputs.filter((i) => !i.indexed)
  const d = decodeParams(rest, log.data)
  if (!d?.exact) return undefined
  rest.forEach((p, i) => values.set(p, d.values[i]))
  // an indexed dynamic value is a hash: shown as bytes32, whatever its declared type
  const shown = event.inputs.map((p) => (p.indexed && isDynamic(p.type) ? { ...p, type: 'bytes32' } : p))
  return argsObject(
    shown,
    event.inputs.map((p) => values.get(p)),
  )
}

/** the ways to mark `count` of `n` parameters indexed, leading ones first (the usual layout) */
function* placements(n: number, count: number, from = 0, chosen: number[] = []): Generator<number[]> {
  if (chosen.length === count) {
    yield chosen
    return
  }
  for (let i = from; i <= n - (count - chosen.length); i++) yield* placements(n, count, i + 1, [...chosen, i])
}

function fromAbis(abis: readonly Abi[], log: LogLike): DecodedLogEvent | undefined {
  const topic0 = log.topics[0]?.toLowerCase() as Hex | undefined
  if (!topic0) return undefined
  for (const abi of abis) {
    for (const c of abiIndex(abi).events.get(topic0) ?? []) {
      const args = decodeEventStrict(c.item, log)
      if (args) return { name: c.item.name, signature: c.signature, args, source: 'abi' }
    }
  }
  return undefined
}

const noTokens: TokenInfoReader = async () => ({})

export async function decodeEvent(
  log: LogLike,
  ownAbis: readonly Abi[],
  otherAbis: readonly Abi[],
  db: () => Promise<SignatureDb>,
  tokens: TokenInfoReader = noTokens,
): Promise<DecodedLogEvent | undefined> {
  const topic0 = log.topics[0]
  if (!topic0) return undefined
  const own = fromAbis(ownAbis, log)
  if (own) return own
  const bundled = await decodeLog(log, tokens)
  if (bundled) return { name: bundled.name, signature: bundled.signature, args: bundled.args, source: 'bundled', summary: bundled.summary }
  const other = fromAbis(otherAbis, log)
  if (other) return other
  const signature = (await db()).event(topic0)
  const event = signature && parseDbSignature('event', signature)
  if (!event || event.inputs.length > 12) return undefined
  for (const at of placements(event.inputs.length, log.topics.length - 1)) {
    const candidate = { ...event, inputs: event.inputs.map((p, i) => ({ ...p, indexed: at.includes(i) })) } as AbiEvent
    const args = decodeEventStrict(candidate, log)
    if (args) return { name: event.name, signature, args, source: 'signatureDb' }
  }
  return undefined
}
