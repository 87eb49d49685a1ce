/**
 * readChain: the chain's read methods for the JSON-RPC endpoint (READ_METHODS only).
 *
 * The params arrive checked by the HTTP layer (geth's grammar, src/rpc/params/readParams.ts).
 *
 * - State reads (balance, code, nonce, storage) at a block come from the engine's own state after
 *   that block — on a fork the fork cache the simulations fill and read, so an account a tool
 *   reads is warm for the next simulation and the other way round;
 * - `eth_chainId` is the chain source's;
 * - everything else goes to the chain source as is (devnet: its own history; fork: the upstream),
 *   and on a fork an answer that cannot change any more is kept in the cache store: by block
 *   hash, or at a block number deeper than the reorg depth below the head (the rule the fork cache
 *   follows near the head); null answers (not there yet) are never kept.
 *
 * @example
 * await readChain(deps, 'eth_getBalance', ['0xf39f…', 'latest']) // '0x21e19e0c9bab2400000'
 */
import { createHash } from 'node:crypto'
import { bytesToHex, createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import type { Hex } from 'viem'
import type { CacheStore } from '../../state/store/cacheStore.js'
import type { ChainSource } from '../../chains/types.js'
import { EngineError } from '../../platform/errors.js'
import { BlockRefError, parseBlockRef, type BlockRef } from '../../platform/blockRef.js'
import { toQuantity as q } from '../../platform/quantity.js'
import { resolveBlockRef } from '../../run/index.js'
import { READ_METHODS, STATE_READS } from './readMethods.js'

export interface ReadDeps {
  chain: ChainSource
  cache: CacheStore
}

export function unsupportedMethod(method: string): EngineError {
  return new EngineError('NOT_FOUND', `the method ${method} does not exist/is not available`, { unsupportedMethod: true })
}

export async function readChain(deps: ReadDeps, method: string, params: unknown[]): Promise<unknown> {
  if (!READ_METHODS.has(method) || !deps.chain.rawRead) throw unsupportedMethod(method)
  if (method === 'eth_chainId') return q(deps.chain.chainId)
  if (method in STATE_READS) return stateRead(deps, method as keyof typeof STATE_READS, params)
  const rule = deps.chain.reorgDepth === undefined ? undefined : cacheRule(method, params)
  if (!rule || rule === 'never') return deps.chain.rawRead(method, params)

  const key = `rpcread:${deps.chain.chainId}:${method}:${createHash('sha256').update(JSON.stringify(params)).digest('hex')}`
  const hit = await deps.cache.get(key).catch(() => undefined)
  if (hit) return JSON.parse(Buffer.from(hit).toString('utf8')) as unknown
  // the head is asked in the same tick: the fork's client sends both in one batch
  const [answer, headHex] = await Promise.all([
    deps.chain.rawRead(method, params),
    rule === 'byHash' ? undefined : (deps.chain.rawRead('eth_blockNumber', []) as Promise<Hex>),
  ])
  if (answer !== null && answer !== undefined && isFinal(rule, answer, headHex, deps.chain.reorgDepth!)) {
    await deps.cache.set(key, Buffer.from(JSON.stringify(answer), 'utf8')).catch(() => {})
  }
  return answer
}

/** how to tell that an answer is final: named by hash, at a number in the params, or by the block the answer names */
type CacheRule = 'byHash' | { number: bigint } | 'answerBlock' | 'never'

function cacheRule(method: string, params: unknown[]): CacheRule | undefined {
  const number = (v: unknown) => (typeof v === 'string' && /^0x[0-9a-fA-F]{1,16}$/.test(v) ? { number: BigInt(v) } : ('never' as const))
  switch (method) {
    case 'eth_getBlockByHash':
    case 'eth_getTransactionByBlockHashAndIndex':
    case 'eth_getBlockTransactionCountByHash':
    case 'eth_getUncleCountByBlockHash':
    case 'eth_getUncleByBlockHashAndIndex':
      return 'byHash'
    case 'eth_getBlockByNumber':
    case 'eth_getTransactionByBlockNumberAndIndex':
    case 'eth_getBlockTransactionCountByNumber':
    case 'eth_getUncleCountByBlockNumber':
    case 'eth_getUncleByBlockNumberAndIndex':
      return number(params[0])
    case 'eth_getBlockReceipts': {
      const p = params[0]
      if (typeof p === 'string' && p.length === 66) return 'byHash'
      return number(p)
    }
    case 'eth_getTransactionByHash':
    case 'eth_getTransactionReceipt':
      return 'answerBlock'
    case 'eth_getLogs': {
      const f = params[0] as { blockHash?: unknown; fromBlock?: unknown; toBlock?: unknown } | undefined
      if (!f || typeof f !== 'object') return 'never'
      if (typeof f.blockHash === 'string') return 'byHash'
      const from = number(f.fromBlock)
      const to = number(f.toBlock)
      return from === 'never' || to === 'never' ? 'never' : to
    }
    case 'eth_getProof':
      return number(params[2])
    default:
      return 'never'
  }
}

function isFinal(rule: Exclude<CacheRule, 'never'>, answer: unknown, headHex: Hex | undefined, depth: bigint): boolean {
  if (rule === 'byHash') return true
  const head = headHex ? BigInt(headHex) : 0n
  if (rule === 'answerBlock') {
    const n = (answer as { blockNumber?: unknown }).blockNumber
    return typeof n === 'string' && head - BigInt(n) > depth
  }
  return head - rule.number > depth
}

// ---- state reads ----

async function stateRead(deps: ReadDeps, method: keyof typeof STATE_READS, params: unknown[]): Promise<Hex> {
  const at = createAddressFromString((params[0] as string).toLowerCase())
  const slot = method === 'eth_getStorageAt' ? hexToBytes(`0x${(params[1] as string).slice(2).padStart(64, '0')}`) : undefined
  const header = await resolveBlockRef(deps.chain, blockOf(params[STATE_READS[method]]), 'header for hash not found')
  const state = await deps.chain.stateAfter(header.number)
  switch (method) {
    case 'eth_getBalance':
      return q((await state.getAccount(at))?.balance ?? 0n)
    case 'eth_getTransactionCount':
      return q((await state.getAccount(at))?.nonce ?? 0n)
    case 'eth_getCode':
      return bytesToHex(await state.getCode(at)) as Hex
    case 'eth_getStorageAt':
      return bytesToHex(setLengthLeft(await state.getStorage(at, slot!), 32)) as Hex
  }
}

/** geth's BlockNumberOrHash (the engine's block grammar); absent is `latest` */
function blockOf(v: unknown): BlockRef {
  try {
    return parseBlockRef(v)
  } catch (e) {
    throw e instanceof BlockRefError ? new EngineError('VALIDATION_ERROR', e.message) : e
  }
}
