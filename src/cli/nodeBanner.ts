/**
 * What `evm-sim node` prints when it is ready: Anvil's start-up sections (accounts with their
 * balances, private keys, wallet, chain id, the fork), in Anvil's words and order, ending with
 * `Listening on host:port`, the line scripts wait for.
 */
import { formatEther, type Hex } from 'viem'
import { DERIVATION_PATH, type NodeAccount } from './nodeAccounts.js'

export interface BannerFacts {
  version: string
  accounts: NodeAccount[]
  balanceWei: bigint
  mnemonic: string
  chainId: number
  /** the fork point of a forked chain; absent on the devnet */
  fork?: { endpoint: string; blockNumber: bigint; blockHash: Hex }
  /** the embedded devnet's head the node starts from */
  devnetHead?: bigint
  listening: string
}

const section = (title: string, lines: string[]) => [title, '==================', '', ...lines, ''].join('\n')

export function banner(f: BannerFacts): string {
  const eth = `${Number(formatEther(f.balanceWei)).toFixed(18)} ETH`
  const parts = [
    `\n    evm-sim ${f.version}\n`,
    section(
      'Available Accounts',
      f.accounts.map((a, i) => `(${i}) ${a.address} (${eth})`),
    ),
    section(
      'Private Keys',
      f.accounts.map((a, i) => `(${i}) ${a.privateKey}`),
    ),
    ['Wallet', '==================', `Mnemonic:          ${f.mnemonic}`, `Derivation path:   ${DERIVATION_PATH}`, '', ''].join('\n'),
    section('Chain ID', [String(f.chainId)]),
  ]
  if (f.fork) {
    // the upstream URL may carry a key: only its origin is shown
    const endpoint = new URL(f.fork.endpoint).origin
    parts.push(
      section('Fork', [
        `Endpoint:       ${endpoint}`,
        `Block number:   ${f.fork.blockNumber}`,
        `Block hash:     ${f.fork.blockHash}`,
        `Chain ID:       ${f.chainId}`,
      ]),
    )
  } else if (f.devnetHead !== undefined) {
    parts.push(section('Embedded devnet', [`Block number:   ${f.devnetHead}`]))
  }
  parts.push(`Listening on ${f.listening}\n`)
  return parts.join('\n')
}
