/**
 * The node's accounts are the mnemonic's keys at m/44'/60'/0'/0/i, as Anvil derives them: the
 * default mnemonic gives Anvil's well-known accounts, and any mnemonic gives what viem's
 * `mnemonicToAccount` gives for each index.
 */
import { bytesToHex } from 'viem'
import { generateMnemonic, english, mnemonicToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { nodeAccounts } from '../../src/cli/nodeAccounts.js'
import { ANVIL_MNEMONIC } from '../../src/cli/nodeFlags.js'
import { DEV_ACCOUNTS } from '../support/anvil.js'

describe('nodeAccounts', () => {
  it("gives Anvil's accounts for its mnemonic", () => {
    const accounts = nodeAccounts(ANVIL_MNEMONIC, 10)
    expect(accounts.map((a) => a.address.toLowerCase())).toEqual([...DEV_ACCOUNTS])
    expect(accounts[0]!.privateKey).toBe('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
  })

  it("gives viem's derivation of any mnemonic, index by index", () => {
    const mnemonic = generateMnemonic(english, 256)
    const accounts = nodeAccounts(mnemonic, 4)
    accounts.forEach((a, i) => {
      const theirs = mnemonicToAccount(mnemonic, { addressIndex: i })
      expect(a.address).toBe(theirs.address)
      expect(a.privateKey).toBe(bytesToHex(theirs.getHdKey().privateKey!))
    })
  })

  it('gives none for a count of 0', () => {
    expect(nodeAccounts(ANVIL_MNEMONIC, 0)).toEqual([])
  })
})
