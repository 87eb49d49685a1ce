/**
 * The node's accounts: `count` keys of the mnemonic at Anvil's derivation path m/44'/60'/0'/0/i,
 * so the default mnemonic gives Anvil's (and Hardhat's) ten well-known accounts.
 *
 * The seed is made once (BIP-39: PBKDF2-HMAC-SHA512 of the mnemonic, 2048 rounds, by Node's
 * native crypto) and the path's parent derived once, each account one child of it: deriving every
 * account from the mnemonic anew (viem's `mnemonicToAccount`) took most of a second of the node's
 * start for ten accounts.
 */
import { pbkdf2Sync } from 'node:crypto'
import { bytesToHex, type Address, type Hex } from 'viem'
import { HDKey, privateKeyToAddress } from 'viem/accounts'

export interface NodeAccount {
  address: Address
  privateKey: Hex
}

export const DERIVATION_PATH = "m/44'/60'/0'/0/"

export function nodeAccounts(mnemonic: string, count: number, passphrase = ''): NodeAccount[] {
  if (count === 0) return []
  const seed = pbkdf2Sync(mnemonic.normalize('NFKD'), `mnemonic${passphrase}`.normalize('NFKD'), 2048, 64, 'sha512')
  const parent = HDKey.fromMasterSeed(seed).derive(DERIVATION_PATH.slice(0, -1))
  return Array.from({ length: count }, (_, i) => {
    const key = parent.deriveChild(i).privateKey
    if (!key) throw new Error(`no private key at ${DERIVATION_PATH}${i}`)
    const privateKey = bytesToHex(key)
    return { address: privateKeyToAddress(privateKey), privateKey }
  })
}
