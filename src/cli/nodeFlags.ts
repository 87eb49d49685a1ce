/**
 * `evm-sim node`'s flags: Anvil's names and defaults (foundry crates/anvil/src/cmd.rs) for the
 * ones a test runner relies on, and the service configuration they make: one writable fork
 * served in this process, no token and no rate limit unless asked, logs only when something
 * goes wrong (docs/decisions/0114-anvil-flags-of-evm-sim-node.md).
 */
import { CliError, intFlag, parseFlags } from './usage.js'

/** Anvil's default mnemonic: the ten well-known development accounts */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk'

export interface NodeFlags {
  forkUrl: string | undefined
  forkBlockNumber: bigint | undefined
  port: number
  host: string
  chainId: number | undefined
  accounts: number
  /** each account's balance, in ETH */
  balance: bigint
  mnemonic: string
  /** seconds between blocks; undefined: a block per transaction */
  blockTime: number | undefined
  noMining: boolean
  state: string | undefined
  silent: boolean
  rateLimit: number | undefined
  authToken: string | undefined
}

const OPTIONS = {
  'fork-url': { type: 'string', short: 'f' },
  'fork-block-number': { type: 'string' },
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  'chain-id': { type: 'string' },
  accounts: { type: 'string', short: 'a' },
  balance: { type: 'string' },
  mnemonic: { type: 'string', short: 'm' },
  'block-time': { type: 'string', short: 'b' },
  'no-mining': { type: 'boolean' },
  state: { type: 'string' },
  silent: { type: 'boolean' },
  'rate-limit': { type: 'string' },
  'auth-token': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

export const NODE_HELP = `evm-sim node [options]: a development node, as anvil, on one writable fork

  -f, --fork-url <url>          the chain to fork (default: the embedded devnet)
      --fork-block-number <n>   the block to fork at (default: latest)
  -p, --port <port>             8545          --host <host>   127.0.0.1
      --chain-id <id>           the fork's chain id (default: the forked chain's)
  -a, --accounts <n>            10            --balance <eth> 10000
  -m, --mnemonic <words>        Anvil's default (test test … junk)
  -b, --block-time <seconds>    mine on an interval instead of on each transaction
      --no-mining               mine only when asked (evm_mine)
      --state <file>            load the state from the file at start (if it exists), dump it there at exit
      --silent                  print nothing
      --rate-limit <n>          requests per client a minute (default: none)
      --auth-token <token>      required bearer token (default: none)

JSON-RPC at http://<host>:<port>/, the REST API, viewer and explorer under /v1.
`

export function nodeFlags(argv: string[]): NodeFlags | 'help' {
  const { values: v } = parseFlags(argv, OPTIONS)
  if (v.help) return 'help'
  if (v['fork-url'] !== undefined && !/^https?:\/\//.test(v['fork-url'])) throw new CliError(`--fork-url: an http(s) URL expected`)
  const blockTime = v['block-time'] === undefined ? undefined : Number(v['block-time'])
  if (blockTime !== undefined && !(blockTime > 0 && blockTime <= 86_400)) throw new CliError(`--block-time: seconds above 0 expected, got '${v['block-time']}'`)
  const mnemonic = (v.mnemonic ?? ANVIL_MNEMONIC).trim().split(/\s+/).join(' ')
  if (![12, 15, 18, 21, 24].includes(mnemonic.split(' ').length)) throw new CliError('--mnemonic: 12 to 24 words expected')
  return {
    forkUrl: v['fork-url'],
    forkBlockNumber: v['fork-block-number'] === undefined ? undefined : BigInt(intFlag('fork-block-number', v['fork-block-number'], 0)!),
    port: intFlag('port', v.port, 0, 65535) ?? 8545,
    host: v.host ?? '127.0.0.1',
    chainId: intFlag('chain-id', v['chain-id'], 1, 2 ** 53 - 1),
    accounts: intFlag('accounts', v.accounts, 0, 1000) ?? 10,
    balance: BigInt(intFlag('balance', v.balance, 0) ?? 10_000),
    mnemonic,
    blockTime,
    noMining: v['no-mining'] ?? false,
    state: v.state,
    silent: v.silent ?? false,
    rateLimit: intFlag('rate-limit', v['rate-limit'], 1),
    authToken: v['auth-token'],
  }
}

/** no limit a test runner could reach: Anvil has none */
const UNLIMITED = String(2 ** 31 - 1)

/**
 * The service configuration of a node, as the variables config/loadConfig.ts reads: built from
 * the flags alone (never the caller's RPC_URL, APP_ENV, …), so `evm-sim node` without
 * `--fork-url` is the devnet whatever the shell holds.
 */
export function nodeEnv(f: NodeFlags): Record<string, string> {
  const limit = f.rateLimit === undefined ? UNLIMITED : String(f.rateLimit)
  return {
    APP_ENV: 'development',
    HOST: f.host,
    PORT: String(f.port),
    RPC_URL: f.forkUrl ?? '',
    // one engine in this process: it starts in a fraction of a second, and a test runner's
    // requests are small and one after another
    WORKERS: '1',
    PROCESSES: '1',
    CACHE_URL: 'memory://',
    AUTH_TOKEN: f.authToken ?? '',
    RATE_LIMIT_REQUESTS: limit,
    FORK_RPC_RATE_LIMIT_REQUESTS: limit,
    FORKS_MAX_BLOCKS: '100000000',
    FORKS_MAX_STATE_MB: '4096',
    // a request in flight at Ctrl-C gets a moment, not the service's 25 s
    SHUTDOWN_GRACE_MS: '2000',
    LOG_LEVEL: f.silent ? 'silent' : 'warn',
  }
}
