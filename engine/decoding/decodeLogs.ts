/**
 * Decodes simulated logs with the bundled event table (interface §4 `decoded`).
 *
 * Strict on purpose: a log is decoded only when it is exactly what the table's event would emit —
 * the right topic count, every topic and the data re-encoding to the very same bytes (no extra
 * data, no dirty high bits in an address, no out-of-range uint112). Anything else gets no
 * `decoded` key: a missing decoding is honest, a wrong one misleads.
 *
 * @example
 * const decoded = await decodeLogs(result.logs, tokens)
 * logs.forEach((log, i) => { if (decoded[i]) log.decoded = decoded[i] })
 */
import { decodeEventLog, encodeAbiParameters, encodeEventTopics, type Address, type Hex } from 'viem'
import type { DecodedEvent } from '../vocabulary.js'
import { findEvent, type EventEntry } from './eventTable.js'
import { shortAddress, summarize } from './summaries.js'
import type { TokenInfoReader } from './tokenInfo.js'

export interface RawLog {
  address: Address
  topics: readonly Hex[]
  data: Hex
}

/** Decoded args as JSON: integers as decimal strings, addresses and bytes lowercase hex. */
function toJsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'number') return String(value)
  if (typeof value === 'string') return value.startsWith('0x') ? value.toLowerCase() : value
  if (Array.isArray(value)) return value.map(toJsonSafe)
  return value
}

/**
 * Whether a 32-byte word (64 lowercase hex digits) is the canonical encoding of a value of a
 * static type; undefined for a type this check does not cover (then the round trip decides).
 */
function cleanWord(type: string, word: string): boolean | undefined {
  if (type === 'address') return word.startsWith('000000000000000000000000')
  if (type === 'bool') return /^0{63}[01]$/.test(word)
  if (type === 'bytes32') return true
  const uint = /^uint(\d+)$/.exec(type)
  if (uint) return BigInt(`0x${word}`) < 1n << BigInt(uint[1]!)
  return undefined
}

const STATIC_TYPE = /^(address|bool|bytes32|uint\d+)$/

/**
 * The round trip below, done as word checks for events of static types only (every ERC-20/721
 * and pool event of the table): each topic and data word must be a canonical encoding, and the
 * data exactly as long as its words. undefined when a type is not covered.
 */
function cleanStatic(entry: EventEntry, topics: Hex[], data: Hex): boolean | undefined {
  const indexed = entry.abi.inputs.filter((i) => i.indexed)
  const nonIndexed = entry.abi.inputs.filter((i) => !i.indexed)
  if (!entry.abi.inputs.every((i) => STATIC_TYPE.test(i.type))) return undefined
  if (data.length !== 2 + 64 * nonIndexed.length) return false
  for (const [i, input] of indexed.entries()) {
    const ok = cleanWord(input.type, topics[i + 1]!.slice(2))
    if (ok !== true) return ok
  }
  for (const [i, input] of nonIndexed.entries()) {
    const ok = cleanWord(input.type, data.slice(2 + 64 * i, 2 + 64 * (i + 1)))
    if (ok !== true) return ok
  }
  return true
}

/** the args of a log whose words cleanStatic found canonical, read word by word */
function readStatic(entry: EventEntry, topics: Hex[], data: Hex): Record<string, unknown> {
  const args: Record<string, unknown> = {}
  let topic = 1
  let word = 0
  for (const input of entry.abi.inputs) {
    const hex = input.indexed ? topics[topic++]!.slice(2) : data.slice(2 + 64 * word, 2 + 64 * ++word)
    args[input.name!] =
      input.type === 'address' ? `0x${hex.slice(24)}` : input.type === 'bool' ? hex.endsWith('1') : input.type === 'bytes32' ? `0x${hex}` : BigInt(`0x${hex}`)
  }
  return args
}

/** The raw viem args when the log is a clean encoding of `entry`, else undefined. */
function decodeStrict(entry: EventEntry, log: RawLog): Record<string, unknown> | undefined {
  if (log.topics.length !== entry.topicCount) return undefined
  const topics = log.topics.map((t) => t.toLowerCase() as Hex)
  const data = log.data.toLowerCase() as Hex
  const clean = cleanStatic(entry, topics, data)
  if (clean === false) return undefined
  // every word checked canonical: read them as they are (what viem would decode, addresses in
  // lowercase — every reader of these args lowercases them), no ABI decoder on the warm path
  if (clean === true) return readStatic(entry, topics, data)
  try {
    const { args } = decodeEventLog({
      abi: [entry.abi],
      topics: topics as [Hex, ...Hex[]],
      data,
      strict: true,
    })
    const decoded = (args ?? {}) as Record<string, unknown>
    if (clean === true) return decoded
    // Round trip: the canonical encoding of what we read must be exactly what was logged.
    const indexed = entry.abi.inputs.filter((i) => i.indexed)
    const reTopics = encodeEventTopics({
      abi: [entry.abi],
      eventName: entry.abi.name,
      args: Object.fromEntries(indexed.map((i) => [i.name!, decoded[i.name!]])),
    } as unknown as Parameters<typeof encodeEventTopics>[0])
    if (reTopics.length !== topics.length || reTopics.some((t, i) => (t as Hex).toLowerCase() !== topics[i])) return undefined
    const nonIndexed = entry.abi.inputs.filter((i) => !i.indexed)
    const reData = nonIndexed.length
      ? encodeAbiParameters(
          nonIndexed,
          nonIndexed.map((i) => decoded[i.name!]),
        )
      : '0x'
    if (reData.toLowerCase() !== data) return undefined
    return decoded
  } catch {
    return undefined
  }
}

/** Decodes one log; undefined when the event is unknown or the log is malformed. */
export async function decodeLog(log: RawLog, tokens: TokenInfoReader): Promise<DecodedEvent | undefined> {
  const entry = findEvent(log.topics[0], log.topics.length)
  if (!entry) return undefined
  const raw = decodeStrict(entry, log)
  if (!raw) return undefined
  const emitter = log.address.toLowerCase() as Address
  const args = Object.fromEntries(entry.abi.inputs.map((i) => [i.name!, toJsonSafe(raw[i.name!])]))
  let summary: string
  try {
    summary = await summarize(entry.id, emitter, raw, tokens)
  } catch {
    // a summary is a courtesy: never let it cost the caller the simulation
    summary = `${entry.abi.name} on ${shortAddress(emitter)}`
  }
  return { name: entry.abi.name, signature: entry.signature, args, summary }
}

/** Decodes every log (index for index); token metadata is read once per token by the reader. */
export async function decodeLogs(logs: readonly RawLog[], tokens: TokenInfoReader): Promise<(DecodedEvent | undefined)[]> {
  return Promise.all(logs.map((log) => decodeLog(log, tokens)))
}
