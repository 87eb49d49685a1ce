/**
 * The node's accounts: `count` keys of the mnemonic at Anvil's derivation path m/44'/60'/0'/0/i,
 * so the default mnemonic gives Anvil's (and Hardhat's) ten well-known accounts.
 */
import { bytesToHex, type Address, type Hex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'

export interface NodeAccount {
  address: Address
  privateKey: Hex
}

export const DERIVATION_PATH = "m/44'/60'/0'/0/"

export function nodeAccounts(mnemonic: string, count: number): NodeAccount[] {
  return Array.from({ length: count }, (_, i) => {
    const account = mnemonicToAccount(mnemonic, { addressIndex: i })
    const key = account.getHdKey().privateKey
    if (!key) throw new Error(`no private key at ${DERIVATION_PATH}${i}`)
    return { address: account.address, privateKey: bytesToHex(key) }
  })
}
