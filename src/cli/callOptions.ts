/**
 * What `evm-sim trace` and `evm-sim simulate` run: a mined transaction (a hash) or a call
 * (`--to` with `--data`, or `--sig 'f(uint256)' args…` encoded as cast encodes them), against
 * `--rpc-url` (default `$ETH_RPC_URL`, else http://127.0.0.1:8545, as cast), on the engine in
 * this process: the node is only read, never asked to trace.
 */
import { encodeFunctionData, isAddress, isHex, parseAbiItem, parseEther, type AbiFunction, type Address, type Hex } from 'viem'
import { isBlockTag, type BlockSelector, type CallInput, type Engine } from '../../engine/types.js'
import { createMemoryCacheStore } from '../../host/cache/memoryCacheStore.js'
import { CliError, parseFlags } from './usage.js'

export const CALL_HELP = `  -r, --rpc-url <url>     the node (default $ETH_RPC_URL, else http://127.0.0.1:8545)
      --to <address>      the called contract          --from <address>  the sender (default 0x0…0)
      --data <hex>        the calldata, or:
      --sig <signature>   e.g. 'transfer(address,uint256)', its arguments after it
      --value <wei>       wei, or e.g. 1ether         --block <n|tag>  (default latest)
      --sources <dir>     a project's build-info (out/ or artifacts/build-info) for names, internal calls, errors
      --json              the result as JSON`

const OPTIONS = {
  'rpc-url': { type: 'string', short: 'r' },
  to: { type: 'string' },
  from: { type: 'string' },
  data: { type: 'string' },
  sig: { type: 'string' },
  value: { type: 'string' },
  block: { type: 'string' },
  sources: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

const ZERO: Address = '0x0000000000000000000000000000000000000000'

export interface CallCommand {
  rpcUrl: string
  /** `--sources`: a folder of build-info to register first */
  sources?: string
  json: boolean
  help: boolean
  /** a mined transaction, or else `call` */
  hash?: Hex
  call?: CallInput
  block: BlockSelector
}

export function callCommand(argv: string[]): CallCommand {
  const { values: v, positionals } = parseFlags(argv, OPTIONS, true)
  const rpcUrl = v['rpc-url'] ?? process.env.ETH_RPC_URL ?? 'http://127.0.0.1:8545'
  if (!/^https?:\/\//.test(rpcUrl)) throw new CliError('--rpc-url: an http(s) URL expected')
  const base = { rpcUrl, json: v.json ?? false, help: v.help ?? false, block: blockOf(v.block), ...(v.sources !== undefined && { sources: v.sources }) }
  if (base.help) return base
  if (v.to === undefined && v.data === undefined && v.sig === undefined) {
    const [hash, ...extra] = positionals
    if (!hash || !/^0x[0-9a-fA-F]{64}$/.test(hash) || extra.length)
      throw new CliError('a transaction hash (0x + 64 hex digits) or a call (--to with --data or --sig) expected')
    return { ...base, hash: hash.toLowerCase() as Hex }
  }
  if (v.to !== undefined && !isAddress(v.to, { strict: false })) throw new CliError(`--to: an address expected, got '${v.to}'`)
  if (v.from !== undefined && !isAddress(v.from, { strict: false })) throw new CliError(`--from: an address expected, got '${v.from}'`)
  const data = v.sig !== undefined ? encodeSig(v.sig, positionals) : (v.data ?? '0x')
  if (!isHex(data) || data.length % 2) throw new CliError('--data: hex of whole bytes expected')
  return {
    ...base,
    call: {
      from: (v.from ?? ZERO).toLowerCase() as Address,
      to: v.to ? (v.to.toLowerCase() as Address) : null,
      data,
      ...(v.value !== undefined && { value: weiOf(v.value) }),
    },
  }
}

function blockOf(block: string | undefined): CallCommand['block'] {
  if (block === undefined || block === 'latest') return { tag: 'latest' }
  if (/^\d+$/.test(block)) return { number: BigInt(block) }
  if (/^0x[0-9a-f]+$/i.test(block)) return { number: BigInt(block) }
  if (isBlockTag(block)) return { tag: block }
  throw new CliError(`--block: a number or a tag expected, got '${block}'`)
}

function weiOf(value: string): bigint {
  const m = /^(\d+(?:\.\d+)?)(ether|gwei|wei)?$/.exec(value)
  if (!m) throw new CliError(`--value: wei, or e.g. 1ether, expected, got '${value}'`)
  if (m[2] === 'ether') return parseEther(m[1]!)
  if (m[2] === 'gwei') return parseEther(m[1]!, 'gwei')
  if (m[1]!.includes('.')) throw new CliError(`--value: whole wei expected, got '${value}'`)
  return BigInt(m[1]!)
}

/** `--sig 'f(uint256,address)' 1 0x…`: the calldata, arguments read as cast reads them */
function encodeSig(sig: string, args: string[]): Hex {
  let fn: AbiFunction
  try {
    fn = parseAbiItem(`function ${sig.replace(/^function\s+/, '')}`) as AbiFunction
  } catch {
    throw new CliError(`--sig: a function signature expected, e.g. 'transfer(address,uint256)', got '${sig}'`)
  }
  if (args.length !== fn.inputs.length) throw new CliError(`--sig ${fn.name}: ${fn.inputs.length} arguments expected, got ${args.length}`)
  try {
    const values = fn.inputs.map((input, i) => argOf(input.type, args[i]!))
    return encodeFunctionData({ abi: [fn], functionName: fn.name, args: values })
  } catch (e) {
    throw new CliError(`--sig ${fn.name}: ${(e as Error).message.split('\n')[0]}`)
  }
}

function argOf(type: string, text: string): unknown {
  if (type.endsWith(']') || type.startsWith('(')) return JSON.parse(text) as unknown
  if (/^u?int\d*$/.test(type)) return BigInt(text)
  if (type === 'bool') return text === 'true'
  return text
}

/** the engine in this process over `rpcUrl`: one thread, a memory cache, no service around it */
export async function openEngine(rpcUrl: string): Promise<Engine> {
  const { createEngine } = await import('../../engine/index.js')
  try {
    return await createEngine({
      cache: createMemoryCacheStore(),
      rpcUrl,
      gasCap: 50_000_000n,
      rpcTimeoutMs: 10_000,
      maxStructLogSteps: 100_000,
      simulationTtlSeconds: 60,
    })
  } catch (e) {
    throw new CliError(`cannot reach ${new URL(rpcUrl).origin}: ${(e as Error).message.split('\n')[0]}`)
  }
}
