/**
 * The devnet's demo history: which signed transactions go into which block at start-up. Everything
 * is fixed (nonces, fees, gas, timestamps elsewhere), and secp256k1 signing is deterministic
 * (RFC 6979), so the hashes are the same on every start and the README can quote them.
 *
 * Block 1: account 0 deploys DemoToken (nonce 0 → 0x5fbdb2315678afecb367f032d93f642f64180aa3)
 * Block 2: account 0 deploys DemoNFT (nonce 1 → 0xe7f1725e7734ce288f8367e1bb143e90bb3f0512)
 * Block 3: account 0 mints NFT #1 to itself and NFT #2 to account 1
 * Block 4: account 0 sends 1000 DEMO to account 1 and 500 DEMO to account 2
 * Block 5: account 1 sends 250 DEMO to account 2; account 0 sends NFT #1 to account 2
 * Block 6: account 3 sends 1 ETH to account 4
 */
import type { Common } from '@ethereumjs/common'
import { createFeeMarket1559Tx, type TypedTransaction } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { encodeDeployData, encodeFunctionData, type Abi, type Address, type Hex } from 'viem'
import { DEV_ACCOUNTS } from '../memory/accounts.js'
import artifact from './demoContracts.json' with { type: 'json' }

export const DEMO_TOKEN_ADDRESS: Address = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
export const DEMO_NFT_ADDRESS: Address = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512'
export const DEMO_TOKEN_SUPPLY = 1_000_000n * 10n ** 18n

export const demoTokenAbi = artifact.DemoToken.abi as Abi
export const demoNftAbi = artifact.DemoNFT.abi as Abi

const GWEI = 10n ** 9n
const ETHER = 10n ** 18n

interface DemoTx {
  signer: number
  nonce: bigint
  to?: Address
  value?: bigint
  data: Hex
  gasLimit: bigint
}

const [a0, a1, a2, , a4] = DEV_ACCOUNTS.map((a) => a.address) as [Address, Address, Address, Address, Address]
const token = (functionName: string, args: unknown[]) => encodeFunctionData({ abi: demoTokenAbi, functionName, args })
const nft = (functionName: string, args: unknown[]) => encodeFunctionData({ abi: demoNftAbi, functionName, args })

/** one entry per block, in order (block 1 first) */
const DEMO_BLOCKS: DemoTx[][] = [
  [
    {
      signer: 0,
      nonce: 0n,
      data: encodeDeployData({ abi: demoTokenAbi, bytecode: artifact.DemoToken.bytecode as Hex, args: [DEMO_TOKEN_SUPPLY] }),
      gasLimit: 2_000_000n,
    },
  ],
  [{ signer: 0, nonce: 1n, data: artifact.DemoNFT.bytecode as Hex, gasLimit: 2_000_000n }],
  [
    { signer: 0, nonce: 2n, to: DEMO_NFT_ADDRESS, data: nft('mint', [a0, 1n]), gasLimit: 200_000n },
    { signer: 0, nonce: 3n, to: DEMO_NFT_ADDRESS, data: nft('mint', [a1, 2n]), gasLimit: 200_000n },
  ],
  [
    { signer: 0, nonce: 4n, to: DEMO_TOKEN_ADDRESS, data: token('transfer', [a1, 1000n * ETHER]), gasLimit: 100_000n },
    { signer: 0, nonce: 5n, to: DEMO_TOKEN_ADDRESS, data: token('transfer', [a2, 500n * ETHER]), gasLimit: 100_000n },
  ],
  [
    { signer: 1, nonce: 0n, to: DEMO_TOKEN_ADDRESS, data: token('transfer', [a2, 250n * ETHER]), gasLimit: 100_000n },
    { signer: 0, nonce: 6n, to: DEMO_NFT_ADDRESS, data: nft('transferFrom', [a0, a2, 1n]), gasLimit: 100_000n },
  ],
  [{ signer: 3, nonce: 0n, to: a4, value: ETHER, data: '0x', gasLimit: 21_000n }],
]

/** the demo blocks' transactions, signed with the dev keys for `common` (chain id 31337) */
export function demoBlocks(common: Common): { tx: TypedTransaction; from: Address }[][] {
  return DEMO_BLOCKS.map((txs) =>
    txs.map((t) => {
      const account = DEV_ACCOUNTS[t.signer]!
      const tx = createFeeMarket1559Tx(
        {
          chainId: BigInt(common.chainId()),
          nonce: t.nonce,
          maxPriorityFeePerGas: GWEI,
          maxFeePerGas: 3n * GWEI,
          gasLimit: t.gasLimit,
          to: t.to,
          value: t.value ?? 0n,
          data: hexToBytes(t.data),
        },
        { common },
      ).sign(hexToBytes(account.privateKey))
      return { tx, from: account.address }
    }),
  )
}
